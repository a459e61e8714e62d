// Live updates: the bookkeeping around EventSource('/api/events'). The browser's EventSource reconnects by itself
// (sending Last-Event-ID); when it gives up (the stream answered with an error), the app opens a new one with
// `?after=<last id seen>` so the server replays what was missed. Pure: no DOM, tested in test/web/client-live.test.ts.

import type { ChangeEvent as ApiChangeEvent } from '../api-types.js';
import { wire, type Keys } from './json.js';

/** The fields of a change event that name what moved (each kind has some of them). */
type Named = Exclude<Keys<ApiChangeEvent>, 'id' | 'ref' | 'from' | 'to' | 'time' | 'kind'>;
const NAMED = ['branch', 'review', 'action', 'remote', 'source'] as const satisfies readonly Named[];

/**
 * The data of one `change` event (ChangeEvent in src/web/api-types.ts) as read, untrusted: `kind` any string (an
 * unknown one is described generically), the naming fields of every kind optional. The client never reads ref
 * names; `ref` is for display only.
 */
export type ChangeEvent = Pick<ApiChangeEvent, 'id' | 'ref' | 'from' | 'to' | 'time'> & { kind: string } & { [K in Named]?: string };

const FIRST_DELAY_MS = 1000;
const MAX_DELAY_MS = 30_000;

export class LiveCursor {
  /** The highest event id seen (0: none yet). */
  lastId = 0;
  private failures = 0;

  /** The stream's address: after a gap, asks for the events after the last one seen. */
  url(base = '/api/events'): string {
    return this.lastId > 0 ? `${base}?after=${this.lastId}` : base;
  }

  private justOpened = false;

  /**
   * Records an event id; false for one already seen (a replay overlapping what arrived live). The first event of
   * a new connection is always taken: a server asked for the events after n sends only later ones, so an older id
   * there means a new server process counting from 1 again, and from then on its ids are the ones that count.
   */
  accept(id: number): boolean {
    const first = this.justOpened;
    this.justOpened = false;
    if (!Number.isSafeInteger(id) || id <= 0) return true;
    if (id <= this.lastId && !first) return false;
    this.lastId = id;
    return true;
  }

  /** The server could not replay from our id (`event: reset`): everything is reloaded, and every id that follows is new. */
  reset(): void {
    this.lastId = 0;
  }

  /** The stream is open: the next failure waits the shortest delay again. */
  opened(): void {
    this.failures = 0;
    this.justOpened = true;
  }

  /** The stream closed for good: how long to wait before opening a new one (1 s, doubling, at most 30 s). */
  failed(): number {
    const delay = Math.min(FIRST_DELAY_MS * 2 ** this.failures, MAX_DELAY_MS);
    this.failures++;
    return delay;
  }
}

/** The data of a `change` event, or null when it is not one. */
export function parseChangeEvent(data: string, lastEventId = ''): ChangeEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch {
    return null;
  }
  if (typeof value !== 'object' || value === null) return null;
  const record = wire<ApiChangeEvent>(value);
  const id = typeof record.id === 'number' ? record.id : Number(lastEventId);
  const text = (key: Keys<ApiChangeEvent>): string | null => {
    const field = record[key];
    return typeof field === 'string' ? field : null;
  };
  const event: ChangeEvent = {
    id: Number.isFinite(id) ? id : 0,
    ref: text('ref') ?? '',
    from: text('from'),
    to: text('to'),
    kind: text('kind') ?? 'other',
    time: text('time') ?? '',
  };
  for (const key of NAMED) {
    const value = text(key);
    if (value !== null) event[key] = value;
  }
  return event;
}

/** The short notice shown when a change arrives. */
export function describeChange(event: ChangeEvent): string {
  if (event.kind === 'review' && event.review !== undefined)
    return `Review ${event.action === 'closed' ? 'decided' : event.action === 'opened' ? 'opened' : 'updated'} (${event.review})`;
  if (event.kind === 'remote' && event.remote !== undefined)
    return event.review !== undefined
      ? `Fetched review ${event.review} from ${event.remote}`
      : `Fetched ${event.remote}/${event.branch ?? ''}`;
  if (event.kind === 'branch' && event.branch !== undefined) return `Knowledge changed on ${event.branch}`;
  if (event.kind === 'source' && event.source !== undefined) return `Source ${event.source} updated`;
  return `Updated ${event.ref || 'knowledge'}`;
}

/** The first refresh after a quiet spell waits this long (more changes usually follow within it). */
const BATCH_DELAY_MS = 80;
/** While changes keep coming, the page refreshes at most this often (and once more after the last). */
const BATCH_INTERVAL_MS = 1000;

/**
 * A burst of changes as one refresh and one notice: `add` says when to flush (null: a flush is already
 * due), `flush` empties the batch and names what it held. Whatever the burst, the page refreshes at most
 * once a second while it lasts and once after it, and keeps one notice: nothing grows with the events.
 */
export class ChangeBatch {
  private count = 0;
  private latest: ChangeEvent | null = null;
  private due = false;
  private lastFlush = -Infinity;

  /** Adds a change (or a reset: `null`); the delay before the flush to schedule, or null when one is due already. */
  add(change: ChangeEvent | null, now: number): number | null {
    this.count++;
    if (change !== null) this.latest = change;
    if (this.due) return null;
    this.due = true;
    return Math.max(BATCH_DELAY_MS, this.lastFlush + BATCH_INTERVAL_MS - now);
  }

  /** The notice for what was batched (null: nothing was); the batch starts again empty. */
  flush(now: number): string | null {
    const { count, latest } = this;
    this.count = 0;
    this.latest = null;
    this.due = false;
    this.lastFlush = now;
    if (count === 0) return null;
    if (latest === null) return 'Reloaded: too many changes arrived while disconnected';
    return count === 1 ? describeChange(latest) : `${count} changes; the last: ${describeChange(latest)}`;
  }
}
