/** What `brv webui` prints once it serves. */
export interface WebuiStarted {
  url: string;
  port: number;
  /** The port asked for (or the default) when it was taken and the next free one was used. */
  wanted?: number;
}

/** The URL to open (with its one-time session token) and how to stop. */
export function webuiText(started: WebuiStarted): string {
  const lines = [`brv webui: ${started.url}`];
  if (started.wanted !== undefined && started.wanted !== started.port)
    lines.push(`Port ${started.wanted} was taken; serving on ${started.port}.`);
  lines.push('Open the URL above (it carries this run’s session token). Ctrl-C stops the dashboard.');
  return `${lines.join('\n')}\n`;
}

/** The notice when `--open` found no browser opener. */
export function openerNotice(opener: string, problem: string | undefined): string {
  return `brv webui: could not start ${opener} to open the browser${problem ? ` (${problem})` : ''}; open the URL yourself.`;
}
