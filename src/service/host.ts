/**
 * What a front end tells the service about the machine it runs on, once, when it creates the service.
 * The library reads no environment variables and no global state: the CLI passes `process.env` and
 * `os.homedir()`, a server its own values, a test whatever it needs.
 */
export interface Host {
  /** The environment git and the hooks brv installs see (git's own GIT_DIR and friends are removed). */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** The user's home directory: where agents keep their user-wide files (`connectors … --global`). */
  readonly home: string;
  /** The platform agent files are laid out for (default: this process's). */
  readonly platform?: NodeJS.Platform;
}

/**
 * Who is acting, passed in by the front end on every write and recorded as the Brv-Agent trailer:
 * the CLI's BRV_AGENT, the MCP client's `clientInfo.name`, later the web dashboard's user.
 */
export interface Actor {
  readonly agent?: string | undefined;
}
