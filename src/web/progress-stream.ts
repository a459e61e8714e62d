import type { ServerResponse } from 'node:http';
import { isBrvError } from '../base/errors.js';
import type { SyncProgress } from '../service/sharing.js';
import type { SyncStreamLine } from './api-types.js';
import { errorStatus, HttpError, STREAMED, type Call } from './request.js';
import { monotonicNow } from '../base/trace.js';

const NDJSON = 'application/x-ndjson';

/** A phase's repeated transfer reports are sent at most this often (its first and last always). */
const TRANSFER_INTERVAL_MS = 100;

/** Whether the client asked for the progress stream (`Accept: application/x-ndjson`). */
export function wantsStream(call: Call): boolean {
  const accept = call.req.headers.accept ?? '';
  return accept.split(',').some((part) => part.trim().split(';')[0]!.trim().toLowerCase() === NDJSON);
}

function line<T>(res: ServerResponse, value: SyncStreamLine<T>): void {
  if (!res.destroyed && !res.writableEnded) res.write(`${JSON.stringify(value)}\n`);
}

/**
 * Runs a long operation (fetch, pull, push, sync) for a client that asked for its progress: the
 * answer is newline-delimited JSON, sent as the work goes — `{"type":"progress", step, remote,
 * branch, attempt, transfer?}` lines, then one `{"type":"result","result":…}` or
 * `{"type":"error","status":N,"error":{kind,message}}` (the status the plain answer would have had:
 * once the stream has begun, the HTTP status is 200 whatever happens). A client that goes away does
 * not stop the work, which then runs to its end as it would without the stream.
 */
export async function streamProgress<T>(
  call: Call,
  run: (onProgress: (progress: SyncProgress) => void) => Promise<T>,
): Promise<typeof STREAMED> {
  const { res } = call;
  res.writeHead(200, { 'Content-Type': `${NDJSON}; charset=utf-8`, 'X-Accel-Buffering': 'no' });
  res.flushHeaders();
  let phase = '';
  let sentAt = 0;
  const onProgress = (progress: SyncProgress): void => {
    const { transfer } = progress;
    if (transfer) {
      const key = `${progress.step}/${transfer.remote}/${transfer.phase}`;
      const now = monotonicNow();
      const last = transfer.total !== undefined && transfer.done >= transfer.total;
      if (key === phase && !last && now - sentAt < TRANSFER_INTERVAL_MS) return;
      phase = key;
      sentAt = now;
    } else phase = '';
    line(res, { type: 'progress', ...progress });
  };
  try {
    line<T>(res, { type: 'result', result: await run(onProgress) });
  } catch (error) {
    const status = error instanceof HttpError ? error.status : isBrvError(error) ? errorStatus(error.kind) : 500;
    const detail = isBrvError(error)
      ? { kind: error.kind, message: error.message }
      : { kind: 'internal-error', message: 'Unexpected failure in the dashboard server.' };
    line(res, { type: 'error', status, error: detail });
  }
  res.end();
  return STREAMED;
}
