import type { Readable, Writable } from 'node:stream';
import { GitProcesses } from '../git/processes.js';
import { createMcpServer, type ServerOptions } from './server.js';
import { BoundedStdioTransport } from './stdio.js';

export interface StdioServeOptions extends Omit<ServerOptions, 'processes'> {
  stdin?: Readable;
  stdout?: Writable;
  /** How long calls still running when the client goes away may take to finish (default 3 s). */
  graceMs?: number;
  /** Largest message read (default MAX_MESSAGE_BYTES). */
  maxMessageBytes?: number;
}

export interface StdioSession {
  /** Resolves once the client has gone (stdin ended, a stream failed, or stop()) and everything is closed. */
  finished: Promise<void>;
  /** Ends the session as if the client had gone (a signal). */
  stop(): void;
}

/**
 * Serves MCP over stdio until the client goes away, then lets running calls finish (for at most
 * `graceMs`: a call still running after that is abandoned; its ref update is compare-and-swap, so
 * nothing is half written) and closes every repository with its long-lived git processes. The caller
 * then exits the process, which also ends anything an abandoned call still had open.
 */
export async function serveStdio(options: StdioServeOptions): Promise<StdioSession> {
  // This server's git processes, over the environment it was started with: stopped when the client goes.
  const processes = new GitProcesses(process.env);
  const { server, pool, calls } = createMcpServer({ ...options, processes });
  const transport = new BoundedStdioTransport(options.stdin, options.stdout, options.maxMessageBytes);
  const ended = new Promise<void>((resolve) => {
    server.server.onclose = resolve;
  });
  await server.connect(transport);
  const finished = ended.then(async () => {
    await calls.settled(options.graceMs ?? 3000);
    // Closing waits for repositories still opening; a git that hangs there must not keep us alive.
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([pool.close(), new Promise<void>((resolve) => (timer = setTimeout(resolve, 2000)))]);
    clearTimeout(timer);
    // An abandoned call may still have a git child (and its transport) running: stop them too.
    processes.terminate();
  });
  return { finished, stop: () => void transport.close() };
}
