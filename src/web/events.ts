import type { IncomingMessage, ServerResponse } from 'node:http';
import { coalesceChanges, type RefChangeEvent } from '../service/repository-pool.js';

/**
 * One move of a `refs/brv/*` ref, as `/api/events` sends it (`event: change`): the repository pool's
 * typed event (`kind` and what the ref names: `branch`, `review` and `action`, `remote`, `source`),
 * numbered, with nulls for absent tips and without the repository.
 */
export type ChangeEvent = {
  /** Increasing from 1 per server start. */
  id: number;
  /** null: the ref was created. */
  from: string | null;
  /** null: the ref was deleted. */
  to: string | null;
  time: string;
} & DistributedOmit<RefChangeEvent, 'repository' | 'from' | 'to'>;

type DistributedOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

export interface EventHubOptions {
  /** How many recent events are kept for replay (default 1,000). */
  eventBuffer?: number;
  /** A client whose unsent bytes exceed this is disconnected (default 1 MiB); it catches up by reconnecting. */
  maxClientBufferBytes?: number;
  /** Interval of the `: ping` comment (default 15 s). */
  pingMs?: number;
  /**
   * Moves within this many milliseconds of the last event sent are held and sent together, one event
   * per ref (default 100; 0 sends each move at once).
   */
  coalesceMs?: number;
}

const DEFAULT_EVENT_BUFFER = 1000;
const DEFAULT_MAX_CLIENT_BUFFER_BYTES = 1024 * 1024;
const RETRY_MS = 1000;
const DEFAULT_COALESCE_MS = 100;

function frame(event: ChangeEvent): string {
  return `id: ${event.id}\nevent: change\ndata: ${JSON.stringify(event)}\n\n`;
}

/** Parses a `Last-Event-ID` or `?after=` value: a non-negative integer, else undefined. */
export function parseEventId(value: string | undefined | null): number | undefined {
  if (value === undefined || value === null || !/^\d{1,15}$/.test(value.trim())) return undefined;
  return Number(value.trim());
}

/**
 * Server-sent events for the dashboard: every ref move becomes one numbered event, kept in a
 * bounded buffer so that a client reconnecting with `Last-Event-ID` (or `?after=`) gets exactly
 * what it missed before going live; a client asking for more than the buffer still holds (or for
 * an id of another server run) gets `event: reset` and reloads. Slow clients do not grow the
 * server's memory: one whose unsent bytes pass the limit is disconnected.
 *
 * A burst is coalesced: the first move after a quiet spell is sent at once, the moves that follow
 * within `coalesceMs` are held and sent together, one event per ref (its first `from`, its last `to`).
 * So a ref that moves 500 times in a second makes about ten
 * events, not 500, and what is pending is bounded by the number of refs, not by the number of moves.
 */
export class EventHub {
  private readonly buffer: Array<{ id: number; frame: string }> = [];
  private readonly clients = new Set<ServerResponse>();
  private readonly checking = new Set<ServerResponse>();
  private lastId = 0;
  private closed = false;
  private readonly size: number;
  private readonly maxClientBytes: number;
  private readonly ping: NodeJS.Timeout;
  private readonly coalesceMs: number;
  /** Moves held until the next flush, by ref (insertion order: the order they first moved in). */
  private readonly pending = new Map<string, RefChangeEvent>();
  private flushTimer: NodeJS.Timeout | undefined;
  private lastSent = -Infinity;

  constructor(options: EventHubOptions = {}) {
    this.size = Math.max(1, options.eventBuffer ?? DEFAULT_EVENT_BUFFER);
    this.coalesceMs = Math.max(0, options.coalesceMs ?? DEFAULT_COALESCE_MS);
    this.maxClientBytes = options.maxClientBufferBytes ?? DEFAULT_MAX_CLIENT_BUFFER_BYTES;
    this.ping = setInterval(() => {
      for (const client of this.clients) this.send(client, ': ping\n\n');
    }, options.pingMs ?? 15_000);
    this.ping.unref();
  }

  /** The id of the last event (0 before any): what the server's response cache is keyed on. */
  get latestId(): number {
    return this.lastId;
  }

  /** Connected clients (tests, diagnostics). */
  get clientCount(): number {
    return this.clients.size;
  }

  /**
   * Takes a ref move: sent at once after a quiet spell, else held with the other moves of this burst
   * and sent (one event per ref) when the coalescing window ends.
   */
  publish(change: RefChangeEvent): void {
    if (this.closed) return;
    const held = this.pending.get(change.ref);
    this.pending.set(change.ref, held ? coalesceChanges(held, change) : change);
    if (this.flushTimer !== undefined) return;
    const wait = this.lastSent + this.coalesceMs - Date.now();
    if (wait <= 0) return this.flush();
    this.flushTimer = setTimeout(() => this.flush(), wait);
    this.flushTimer.unref();
  }

  /**
   * Sends what is held: one event per ref. A ref that came back to where it was is sent too (`from`
   * equal to `to`): a client may have read it in between, and only an event makes it read again.
   */
  private flush(): void {
    clearTimeout(this.flushTimer);
    this.flushTimer = undefined;
    this.lastSent = Date.now();
    const changes = [...this.pending.values()];
    this.pending.clear();
    for (const change of changes) this.emit(change);
  }

  /** Numbers one change, keeps it for replay and sends it to every client. */
  private emit(change: RefChangeEvent): void {
    const { repository: _repository, ref, from, to, ...named } = change;
    const event: ChangeEvent = { id: ++this.lastId, ref, from: from ?? null, to: to ?? null, ...named, time: new Date().toISOString() };
    const text = frame(event);
    this.buffer.push({ id: event.id, frame: text });
    if (this.buffer.length > this.size) this.buffer.splice(0, this.buffer.length - this.size);
    for (const client of this.clients) this.send(client, text);
  }

  /**
   * Starts an event stream on `res`: replays what came after `after` (or `reset` when that is no
   * longer known), then sends live events until the client goes or the hub closes.
   */
  attach(req: IncomingMessage, res: ServerResponse, after: number | undefined): void {
    if (this.closed) {
      res.writeHead(503, { 'Content-Type': 'text/plain; charset=utf-8' }).end('The server is stopping.\n');
      return;
    }
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    req.socket.setNoDelay(true);
    this.clients.add(res);
    res.on('close', () => this.clients.delete(res));
    this.send(res, `retry: ${RETRY_MS}\n\n`);
    if (after === undefined) return;
    const oldest = this.buffer[0]?.id ?? this.lastId + 1;
    if (after > this.lastId || after < oldest - 1) {
      this.send(res, `id: ${this.lastId}\nevent: reset\ndata: {}\n\n`);
      return;
    }
    for (const entry of this.buffer) if (entry.id > after) this.send(res, entry.frame);
  }

  /** Ends every stream (the clients reconnect to the next server) and refuses new ones. */
  close(): void {
    this.closed = true;
    clearInterval(this.ping);
    clearTimeout(this.flushTimer);
    this.pending.clear();
    for (const client of this.clients) client.end();
    this.clients.clear();
  }

  /**
   * Writes to one client; false when it was disconnected for falling too far behind. Bytes written
   * in one turn of the event loop are flushed to the socket after it, so the check waits for that:
   * what is still unsent then is what the client did not read.
   */
  private send(client: ServerResponse, text: string): boolean {
    if (client.destroyed || !this.clients.has(client)) return false;
    client.write(text);
    if (client.writableLength > this.maxClientBytes && !this.checking.has(client)) {
      this.checking.add(client);
      setImmediate(() => {
        this.checking.delete(client);
        if (client.writableLength <= this.maxClientBytes) return;
        this.clients.delete(client);
        client.destroy();
      });
    }
    return true;
  }
}
