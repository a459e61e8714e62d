import { GitProcesses } from '../git/processes.js';

let processes: GitProcesses | undefined;

/** The git processes of this CLI process (one per process, over its environment): every command passes it to the library. */
export function cliGitProcesses(): GitProcesses {
  processes ??= new GitProcesses(process.env);
  return processes;
}

const SIGNALS: ReadonlyArray<[NodeJS.Signals, number]> = [
  ['SIGTERM', 143],
  ['SIGINT', 130],
  ['SIGHUP', 129],
];

let installed = false;

/**
 * For commands that can run long git children (fetch, push, clone — with ssh or a credential
 * helper under them): when brv is told to stop (SIGTERM, SIGINT, SIGHUP) or its parent goes away
 * (an agent harness that died; brv is re-parented), stop them and everything they started, then
 * exit as the signal would have. At any other exit, still-running git children are stopped too.
 * SIGKILL cannot be caught: then `cat-file --batch` ends when its input closes, but a fetch or push
 * already talking to a remote runs until git or the transport gives up.
 */
function stopGitWithBrv(): void {
  if (installed) return;
  installed = true;
  for (const [signal, code] of SIGNALS) {
    process.once(signal, () => {
      cliGitProcesses().terminate();
      process.exit(code);
    });
  }
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid === parent) return;
    cliGitProcesses().terminate();
    process.exit(129);
  }, 500).unref();
  process.once('exit', () => cliGitProcesses().terminate());
}

/** A command handler that installs stopGitWithBrv first. */
export function stoppingGit<A>(handler: (argv: A) => Promise<void> | void): (argv: A) => Promise<void> | void {
  return (argv: A) => {
    stopGitWithBrv();
    return handler(argv);
  };
}
