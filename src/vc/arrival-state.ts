import type { ErrorKind } from '../base/error-kinds.js';

// What the read-time import of fetched knowledge (arrival.ts) found: its own module, so that the
// import's slow path (arrival-import.ts) and its cheap part share it without a cycle.

/** What the read-time import found (and did) for one brv branch. */
export type KnowledgeArrival =
  /** Nothing to take: no remote or no remote-tracking ref, equal tips, or the local branch is ahead. */
  | { state: 'current'; branch: string; remote?: string }
  /** The local branch took the fetched knowledge (`from` undefined: it started at the remote's tip, adopted). */
  | { state: 'fast-forwarded'; branch: string; remote: string; from: string | undefined; to: string }
  /** Local and remote knowledge diverged: reads answer from the local branch until `brv sync` merges them. */
  | { state: 'diverged'; branch: string; remote: string; ahead: number; behind: number; fix: 'brv sync' }
  /** The incoming change is held for review (the removal guard, or another policy of integrateIncoming). */
  | { state: 'held'; branch: string; remote: string; review: string; rule: string; incoming: string }
  /** The remote-tracking tip is not knowledge this brv takes (not a brv commit, an unknown format …): nothing moved. */
  | { state: 'refused'; branch: string; remote: string; commit: string; kind: ErrorKind; message: string }
  /** The import could not run (a typed failure); the read goes on from the local branch. Never remembered. */
  | { state: 'failed'; branch: string; remote: string; kind: ErrorKind; message: string };

/** The states a reader must be told of, once per read (every other state is silent). */
export type KnowledgeNotice = Extract<KnowledgeArrival, { state: 'diverged' | 'held' | 'refused' | 'failed' }>;

export function arrivalNotice(arrival: KnowledgeArrival | undefined): KnowledgeNotice | undefined {
  if (!arrival) return undefined;
  return arrival.state === 'diverged' || arrival.state === 'held' || arrival.state === 'refused' || arrival.state === 'failed'
    ? arrival
    : undefined;
}
