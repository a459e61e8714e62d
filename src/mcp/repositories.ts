import path from 'node:path';
import { BrvError } from '../errors.js';
import { discoverRepository } from '../git/discover.js';
import { Brv } from '../service/brv.js';

/**
 * The repositories an MCP server may touch. Launched inside a repository, the server serves that
 * repository only: a `cwd` anywhere else is refused. Launched outside one (a desktop client), every
 * call names its repository with `cwd`. Each repository stays open between calls, so its object
 * reader and search index stay warm; every call re-reads the brv branch and tip, so writes by
 * other processes (CLI curates, `git fetch`, `brv vc checkout`) are seen on the next call.
 */
export class RepositoryPool {
  private readonly open = new Map<string, Promise<Brv>>();
  private home: Promise<{ commonDir: string; gitDir: string } | undefined> | undefined;
  private closed = false;

  constructor(private readonly launchDir: string) {}

  async resolve(cwd: string | undefined): Promise<Brv> {
    if (this.closed) throw new BrvError('server-closing', 'This brv MCP server is shutting down: reconnect and call again.');
    const home = await this.homeRepository();
    if (cwd === undefined) {
      if (!home)
        throw new BrvError('cwd-required', 'This brv MCP server was started outside a git repository: pass cwd, the project directory.');
      return this.brvFor(home.gitDir, this.launchDir);
    }
    if (!path.isAbsolute(cwd)) throw new BrvError('invalid-cwd', `cwd must be an absolute path, not "${cwd}".`);
    const location = await discoverRepository(cwd).catch((error: unknown) => {
      throw new BrvError('not-a-git-repository', `cwd ${cwd} is not inside a git repository (${(error as Error).message}).`);
    });
    if (home && location.commonDir !== home.commonDir) {
      throw new BrvError('outside-repository', `cwd ${cwd} is outside the repository this brv MCP server serves (${home.commonDir}).`);
    }
    // Keyed by git dir: worktrees of one repository share knowledge but each has its own brv branch.
    return this.brvFor(location.gitDir, cwd);
  }

  /** Closes every repository (their long-lived git processes), including ones still opening; none opens after. */
  async close(): Promise<void> {
    this.closed = true;
    const opening = [...this.open.values()];
    this.open.clear();
    await Promise.all(opening.map((brv) => brv.then((b) => b.close()).catch(() => {})));
  }

  private homeRepository(): Promise<{ commonDir: string; gitDir: string } | undefined> {
    this.home ??= discoverRepository(this.launchDir).then(
      (location) => ({ commonDir: location.commonDir, gitDir: location.gitDir }),
      () => undefined,
    );
    return this.home;
  }

  private async brvFor(gitDir: string, cwd: string): Promise<Brv> {
    let brv = this.open.get(gitDir);
    if (!brv) {
      brv = Brv.open(cwd);
      this.open.set(gitDir, brv);
      brv.catch(() => this.open.delete(gitDir));
    }
    const ready = await brv;
    if (this.closed) {
      // Opened while the pool was closing: close() may have missed it.
      ready.close();
      throw new BrvError('server-closing', 'This brv MCP server is shutting down: reconnect and call again.');
    }
    await ready.refreshBranch();
    return ready;
  }
}
