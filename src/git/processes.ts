import type { ChildProcess } from 'node:child_process';
import { childProcess } from './child-process.js';
import { readdirSync, readFileSync } from 'node:fs';
import { cleanGitEnvironment, terminalPrompts } from './env.js';

/**
 * The git processes one front end runs, and the environment they run in. The front end creates one
 * (the CLI one per process, a server one for its lifetime) from the environment it was started with
 * and passes it down: the library reads no environment variables and keeps no global state, so two
 * of them (two servers in one process, tests) never see each other's children or settings.
 */
export class GitProcesses {
  private readonly base: Readonly<Record<string, string>>;
  /** Every git process started through this object that has not exited (or, for batch processes, been closed). */
  private readonly running = new Set<ChildProcess>();
  /** Whether git children keep the terminal to ask on (GIT_TERMINAL_PROMPT true); if not, each runs in a session of its own. */
  readonly terminalPrompts: boolean;

  /** `env`: the environment git children start from (a front end passes the environment it was started with); hook variables such as GIT_DIR are removed. */
  constructor(env: Readonly<Record<string, string | undefined>>) {
    this.base = cleanGitEnvironment(env);
    this.terminalPrompts = terminalPrompts(this.base);
  }

  /** The cleaned environment for a git child, with `extra` on top. */
  environment(extra?: Record<string, string>): Readonly<Record<string, string>> {
    return extra ? { ...this.base, ...extra } : this.base;
  }

  /** Registers a git child so `terminate` can stop it (and what it started). */
  track(child: ChildProcess): void {
    this.running.add(child);
    child.once('exit', () => this.running.delete(child));
    child.once('error', () => this.running.delete(child));
  }

  /** A child no longer to stop at exit (a batch process whose input is closed: it ends by itself). */
  untrack(child: ChildProcess): void {
    this.running.delete(child);
  }

  /**
   * Stops every git process started through this object that is still running, and every process
   * those started (ssh, remote helpers: git does not stop its transport when it is killed), with
   * `signal`. For front ends: call it when brv is told to stop (SIGTERM, SIGINT, SIGHUP), when its
   * parent goes away, or at exit. The library installs no signal handlers itself. Synchronous, so
   * it can run in an `exit` handler. Returns how many processes were signalled.
   */
  terminate(signal: NodeJS.Signals = 'SIGTERM'): number {
    const roots = [...this.running].map((c) => c.pid).filter((pid): pid is number => pid !== undefined);
    this.running.clear();
    if (roots.length === 0) return 0;
    const pids = withDescendants(roots);
    // Deepest first, so a transport is gone before git can notice and start anything else.
    for (const pid of pids.reverse()) {
      try {
        process.kill(pid, signal);
      } catch {
        // Already gone.
      }
    }
    return pids.length;
  }
}

/** `roots` and all their descendants, parents before children (best effort: Linux /proc, else ps). */
function withDescendants(roots: readonly number[]): number[] {
  let children: Map<number, number[]>;
  try {
    children = processChildren();
  } catch {
    return [...roots];
  }
  const seen = new Set<number>();
  const order: number[] = [];
  const queue = [...roots];
  while (queue.length > 0) {
    const pid = queue.shift()!;
    if (seen.has(pid)) continue;
    seen.add(pid);
    order.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return order;
}

function processChildren(): Map<number, number[]> {
  const children = new Map<number, number[]>();
  const add = (pid: number, ppid: number) => {
    if (!Number.isInteger(pid) || !Number.isInteger(ppid)) return;
    const list = children.get(ppid);
    if (list) list.push(pid);
    else children.set(ppid, [pid]);
  };
  if (process.platform === 'linux') {
    for (const entry of readdirSync('/proc')) {
      if (!/^\d+$/.test(entry)) continue;
      try {
        // "<pid> (<comm>) <state> <ppid> …": comm may hold spaces and parentheses, so split after the last ")".
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
        add(Number(entry), Number(fields[1]));
      } catch {
        // Exited meanwhile.
      }
    }
    return children;
  }
  if (process.platform === 'win32') return children;
  const ps = childProcess().spawnSync('ps', ['-A', '-o', 'pid=,ppid='], { encoding: 'utf8', timeout: 2000 });
  for (const line of (ps.stdout ?? '').split('\n')) {
    const [pid, ppid] = line.trim().split(/\s+/).map(Number);
    if (pid !== undefined && ppid !== undefined) add(pid, ppid);
  }
  return children;
}
