import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';

/**
 * One bash for a whole test file (spawning one per question costs ~50 ms of the suite's time each):
 * scripts run in it one after another, each answering with what it printed on stdout.
 */
export class Bash {
  private readonly child: ChildProcessWithoutNullStreams;
  private output = '';
  private queue: Promise<unknown> = Promise.resolve();
  private static readonly END = '\u0001end-of-script\u0001';

  constructor(env: Record<string, string>, cwd: string) {
    this.child = spawn('bash', ['--norc', '--noprofile'], { env, cwd, stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => (this.output += chunk));
    this.child.stderr.resume();
  }

  /** Runs `script` (in this shell: variables and functions stay), resolving to what it printed. */
  run(script: string): Promise<string> {
    const next = this.queue.then(
      () =>
        new Promise<string>((resolve, reject) => {
          const done = () => {
            const at = this.output.indexOf(`${Bash.END}\n`);
            if (at < 0) return;
            this.child.stdout.off('data', done);
            this.child.off('exit', gone);
            const text = this.output.slice(0, at);
            this.output = this.output.slice(at + Bash.END.length + 1);
            resolve(text);
          };
          const gone = () => reject(new Error(`bash exited running: ${script}`));
          this.child.stdout.on('data', done);
          this.child.once('exit', gone);
          this.child.stdin.write(`${script}\nprintf '%s\\n' $'${Bash.END.replace(/\u0001/g, '\\001')}'\n`);
        }),
    );
    this.queue = next.catch(() => {});
    return next;
  }

  close(): void {
    this.child.stdin.end();
  }
}

/** A word as a bash literal: single-quoted, a single quote written as '\''. */
export function shellWord(word: string): string {
  return `'${word.replace(/'/g, `'\\''`)}'`;
}
