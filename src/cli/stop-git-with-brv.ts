import { processCliRun } from './io.js';

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
  // Only the real process (main.ts) installs them: an in-process run (tests) owns no signals.
  if (installed || !processCliRun()) return;
  installed = true;
  // The service is created (lazily) by the command itself; until then no git has been started.
  const terminateGitProcesses = () => processCliRun()?.service?.terminateGitProcesses();
  for (const [signal, code] of SIGNALS) {
    process.once(signal, () => {
      terminateGitProcesses();
      process.exit(code);
    });
  }
  const parent = process.ppid;
  setInterval(() => {
    if (process.ppid === parent) return;
    terminateGitProcesses();
    process.exit(129);
  }, 500).unref();
  process.once('exit', () => terminateGitProcesses());
}

/** A command handler that installs stopGitWithBrv first. */
export function stoppingGit<A>(handler: (argv: A) => Promise<void> | void): (argv: A) => Promise<void> | void {
  return (argv: A) => {
    stopGitWithBrv();
    return handler(argv);
  };
}
