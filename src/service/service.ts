import path from 'node:path';
import type { AgentInfo, ConnectorScope, InstallResult, StatusEntry, UninstallResult } from '../setup/connectors/connectors.js';
import type { ConnectorType } from '../setup/connectors/agents.js';
import type { DoctorReport } from '../setup/doctor.js';
import { BrvError, isBrvError } from '../base/errors.js';
import { GitProcesses } from '../git/processes.js';
import type { RefusedTip, SyncProgress } from '../vc/sync.js';
import type { AdoptResult } from '../vc/upstream.js';
import type { RemoteLayout } from '../base/ref-names.js';
import { Brv, type OpenOptions } from './brv.js';
import { CONTEXT } from './context.js';
import { absolute } from './paths.js';
import type { Host } from './host.js';
import { RepositoryPool, type RepositoryPoolOptions } from './repository-pool.js';
import { GlobalSettings } from './global-settings.js';
import type { Providers } from './providers.js';

export type { AgentInfo, InstallResult, StatusEntry, UninstallResult } from '../setup/connectors/connectors.js';
export type { ConnectorType } from '../setup/connectors/agents.js';
export { preloadRetrieval } from './retrieval.js';
export { preloadCurate } from './knowledge.js';
export type { KeyStorage, Providers } from './providers.js';

export interface CloneRequest {
  /** Any URL git can clone over the transports brv allows, or a path. */
  url: string;
  /** The target directory. */
  directory: string;
  /** Absolute: where a relative `url` path or `directory` is resolved, as if git clone ran there. */
  cwd: string;
  /**
   * Where origin keeps knowledge (see `RemoteLayout`). Unset: refs, or branches when the remote has
   * no brv refs but brv commits on branches brv/<branch>.
   */
  layout?: RemoteLayout;
}

export interface CloneResult {
  directory: string;
  /** Local brv branches created from the remote's. */
  branches: string[];
  /** Reviews brought along. */
  reviews: string[];
  /** Remote tips brv refused (not brv commits, or a format this brv does not read). */
  refused: RefusedTip[];
  /** Where origin keeps knowledge: as asked, or as found (`branches` when detected). */
  layout: RemoteLayout;
}

export interface DoctorRequest {
  /** The directory to check (any directory: outside a repository, git itself is still checked). */
  cwd: string;
}

/** A connector's files go in the project (this repository's work tree) or, with `global`, the home directory. */
export interface ConnectorScopeRequest {
  /** The directory whose repository is the project (ignored with `global`). */
  cwd: string;
  global?: boolean;
}

export interface ConnectorRequest extends ConnectorScopeRequest {
  /** Agent id, name or alias, any case (`listAgents`). */
  agent: string;
  /** Default: the agent's default type (install), every type (uninstall). */
  type?: ConnectorType;
}

export interface InstallConnectorRequest extends ConnectorRequest {
  /** The fetch step and git's transfer progress, when the remote's brv branch is fetched to adopt it. */
  onProgress?: (progress: SyncProgress) => void;
}

/** What install did, and (project installs in a clone without a brv branch) the remote's branch adopted. */
export interface InstallConnectorResult extends InstallResult {
  adopted?: AdoptResult;
}

export interface ConnectorStatusRequest extends ConnectorScopeRequest {
  /** Only this agent. */
  agent?: string;
}

export interface ConnectorStatusResult {
  /** The scopes looked at: the project's (when `cwd` is in a repository with a work tree) and the home directory's. */
  scopes: Array<{ scope: ConnectorScope['scope']; root: string }>;
  connectors: StatusEntry[];
}

export interface EditorRequest {
  /** The editor command as the person configured it (`$VISUAL`, `$EDITOR`): shell text, arguments allowed. */
  editor: string;
  /** The file to edit (absolute). */
  file: string;
}

export interface OpenUrlRequest {
  /** An http(s) URL (the dashboard's). */
  url: string;
}

/** Whether the platform's opener (`xdg-open`, `open`, `start`) started; a missing one is not an error. */
export interface OpenUrlResult {
  opened: boolean;
  opener: string;
  problem?: string;
}

/**
 * brv for one front-end process: the entry point of the library. It owns the git processes it
 * starts (`terminateGitProcesses` when the front end is told to stop) and knows the host (its
 * environment and home directory), so nothing below reads the process environment. Operations
 * on a repository are on the `Brv` that `open` returns; the rest (clone, doctor anywhere,
 * connectors, the texts brv ships) are here.
 */
export class BrvService {
  private readonly processes: GitProcesses;

  constructor(private readonly host: Host) {
    this.processes = new GitProcesses(host.env);
  }

  /** Settings in the user's global git config: no repository needed (`brv settings --global` anywhere). */
  globalSettings(): GlobalSettings {
    return new GlobalSettings(this.processes, this.host.home);
  }

  /** Model providers (the optional LLM layer): connect, choose, list; no repository needed. */
  async providers(): Promise<Providers> {
    const { Providers } = await import('./providers.js');
    return new Providers(this.host, this.processes);
  }

  /** The repository containing `cwd` (any sub-directory, a linked worktree or a bare repository). */
  open(cwd: string, options: OpenOptions = {}): Promise<Brv> {
    return Brv.open(cwd, this.host, this.processes, options);
  }

  /**
   * `git clone` a repository and bring its knowledge: brv's fetch refspecs on `origin`, its brv
   * branches and reviews fetched, local brv branches created from them.
   */
  async clone(request: CloneRequest): Promise<CloneResult> {
    const [{ cloneRepository }, sync] = await Promise.all([import('../git/remote.js'), import('../vc/sync.js')]);
    await cloneRepository(request.url, request.directory, absolute(request.cwd, 'cwd'), this.processes);
    const brv = await this.open(path.resolve(request.cwd, request.directory));
    try {
      const { repo, store } = brv[CONTEXT]();
      if (request.layout) await sync.setRemoteLayout(store, 'origin', request.layout);
      await sync.trackRemote(repo, 'origin');
      // Without a layout asked for, one in the branches layout (a host that refuses refs/brv/*) is found.
      const fetched = await sync.fetchRemote(store, 'origin');
      const branches = await sync.createMissingBranches(repo, 'origin');
      return {
        directory: repo.location.workTree ?? repo.location.gitDir,
        branches,
        reviews: fetched.reviews.opened,
        refused: fetched.refused,
        layout: await sync.remoteLayout(repo, 'origin'),
      };
    } finally {
      brv.close();
    }
  }

  /**
   * `brv doctor`: every problem brv can see, each with its fix. Outside a repository (or when it
   * cannot be opened) the report says so, with git's own check.
   */
  async doctor(request: DoctorRequest): Promise<DoctorReport> {
    let brv: Brv | undefined;
    try {
      brv = await this.open(request.cwd);
      return await brv.setup.doctor();
    } catch (error) {
      const { checkGit } = await import('../setup/doctor.js');
      const message = isBrvError(error) ? error.message : String((error as Error)?.message ?? error);
      return {
        ok: false,
        checks: [await checkGit(this.processes), { name: 'repository', status: 'fail', message, fix: 'cd into your project, or git init' }],
      };
    } finally {
      brv?.close();
    }
  }

  /** Every agent brv connects to, its connector types and the files each one writes. */
  async agents(): Promise<AgentInfo[]> {
    const { listAgents } = await import('../setup/connectors/connectors.js');
    return listAgents(this.host.platform);
  }

  /** Connects an agent: its rules file, MCP server entry, skill or prompt hook. */
  /**
   * Installs an agent's connector. In a project whose clone has no brv branch yet, the remote's is
   * adopted too (fetched unless a fetch already brought it; see Setup.adopt), so the agent's first
   * brv-query answers from the team's knowledge.
   */
  async installConnector(request: InstallConnectorRequest): Promise<InstallConnectorResult> {
    const { installConnector } = await import('../setup/connectors/connectors.js');
    return this.inScope(request, async (scope, brv) => {
      const result = await installConnector(scope, request.agent, request.type);
      const adopted = brv && !brv.repository.bare ? await brv.setup.adopt({ onProgress: request.onProgress }) : undefined;
      return adopted ? { ...result, adopted } : result;
    });
  }

  /** Removes exactly what install added for an agent (every type, or one). */
  async uninstallConnector(request: ConnectorRequest): Promise<UninstallResult> {
    const { uninstallConnector } = await import('../setup/connectors/connectors.js');
    return this.inScope(request, (scope) => uninstallConnector(scope, request.agent, request.type));
  }

  /** What brv has installed for which agents, in the project (if `cwd` is in one) and the home directory. */
  async connectorStatus(request: ConnectorStatusRequest): Promise<ConnectorStatusResult> {
    const { connectorStatus, globalScope, projectScope } = await import('../setup/connectors/connectors.js');
    const scopes: ConnectorScope[] = [];
    if (!request.global) {
      let brv: Brv | undefined;
      try {
        brv = await this.open(request.cwd);
        if (brv.repository.workTree) scopes.push(projectScope(brv.repository, this.host.platform));
      } catch (error) {
        if (!isBrvError(error) || error.kind !== 'not-a-git-repository') throw error;
      } finally {
        brv?.close();
      }
    }
    scopes.push(globalScope(this.host.home, this.host.platform));
    const connectors = await connectorStatus(scopes, request.agent);
    return { scopes: scopes.map(({ scope, root }) => ({ scope, root })), connectors };
  }

  /** The repositories a long-lived server (MCP, web, TUI) serves, kept open, with ref-change events. */
  pool(launchDir: string, options: Omit<RepositoryPoolOptions, 'open' | 'processes'> = {}): RepositoryPool {
    return new RepositoryPool(launchDir, { ...options, open: (cwd) => this.open(cwd), processes: this.processes });
  }

  /**
   * Stops every git process this service started that is still running, and what those started.
   * For front ends: call it when told to stop (signals), when the parent goes away, or at exit.
   * Synchronous; returns how many processes were signalled.
   */
  terminateGitProcesses(signal: NodeJS.Signals = 'SIGTERM'): number {
    return this.processes.terminate(signal);
  }

  /**
   * Runs a person's editor on a file and waits for it (`brv edit`): the editor is started like git's
   * own, with the terminal inherited, and is stopped with the git processes.
   */
  async runEditor(request: EditorRequest): Promise<void> {
    const { runEditor } = await import('../proc/editor.js');
    await runEditor(this.processes, request.editor, absolute(request.file));
  }

  /** Opens a URL in the person's browser (`brv webui --open`), detached. */
  async openUrl(request: OpenUrlRequest): Promise<OpenUrlResult> {
    if (!/^https?:\/\//.test(request.url))
      throw new BrvError('usage', `Only http and https URLs are opened, not ${JSON.stringify(request.url)}.`);
    const { openUrl } = await import('../proc/opener.js');
    return openUrl(this.processes, request.url, this.host.platform);
  }

  private async inScope<T>(request: ConnectorScopeRequest, run: (scope: ConnectorScope, brv?: Brv) => Promise<T>): Promise<T> {
    const { globalScope, projectScope } = await import('../setup/connectors/connectors.js');
    if (request.global) return run(globalScope(this.host.home, this.host.platform));
    const brv = await this.open(request.cwd);
    try {
      return await run(projectScope(brv.repository, this.host.platform), brv);
    } finally {
      brv.close();
    }
  }
}
