import { BrvError } from '../../base/errors.js';
import type { ContextStore, Snapshot } from '../../store/context-store.js';
import { REVIEW_PREFIX } from '../../store/layout.js';
import type { TreeEdit } from '../../store/tree-edit.js';
import { oneLine, parseCommitMessage } from '../../store/trailers.js';
import { MAX_STORED_TOPIC_BYTES } from '../../topic/limits.js';
import { normalizeTopicPath, topicBlobPath, topicPathFromBlobPath } from '../../topic/path.js';
import type { TopicPath } from '../../topic/types.js';
import {
  DREAM_KINDS,
  factConflicts,
  relationCandidates,
  similarPairs,
  staleCandidates,
  type DreamCandidate,
  type DreamKind,
} from './candidates.js';
import { lastChanges, presentPaths, readBlobs } from './last-changes.js';
import { askModel, type DreamModel } from './model.js';
import { scanTopic, type ScannedTopic } from './scan.js';
import { mark, monotonicNow } from '../../base/trace.js';

export type { DreamCandidate, DreamKind } from './candidates.js';
export type { DreamModel } from './model.js';

export interface DreamOptions {
  branch: string;
  /** Only topics in this folder (`security`, `api/v2`). */
  scope?: string;
  /** What to look for; all kinds by default. */
  kinds?: readonly DreamKind[];
  /** At most this many candidates, the strongest first (default 50). */
  max?: number;
  /** Find and show, write nothing (and ask no model). */
  dryRun?: boolean;
  /** Recorded as Brv-Agent. */
  agent?: string;
  /** The connected model, if any: merge and synthesize are proposed only with one. */
  model?: DreamModel;
  /** Its name (`provider/model`), recorded as Brv-Model when it wrote a proposal. */
  modelName?: string;
  signal?: AbortSignal;
  /** Long runs: which step, and how far (`done` of `total`). */
  onProgress?: (step: DreamStep, done: number, total?: number) => void;
}

export type DreamStep = 'read' | 'compare' | 'history' | 'model' | 'write';

/** What became of a candidate. */
export type CandidateStatus = 'proposed' | 'needs-model' | 'listed' | 'dropped';

export type DreamCandidateResult = DreamCandidate & { status: CandidateStatus; note?: string };

/** One proposal: the topics it changes and how. */
export interface DreamProposal {
  type: DreamKind;
  why: string;
  changes: Array<{ path: string; action: 'add' | 'update' | 'remove' }>;
}

export interface DreamOutcome {
  branch: string;
  scope: string | undefined;
  kinds: DreamKind[];
  /** Topics compared. */
  topics: number;
  candidates: DreamCandidateResult[];
  proposals: DreamProposal[];
  /** What a person should know: bounds reached, topics not read, model replies dropped. */
  notes: string[];
  dryRun: boolean;
  /** The held review of the proposals (absent when nothing was proposed, or on a dry run). */
  review?: { id: string; commit: string };
  durationMs: number;
}

const DEFAULT_MAX = 50;
/** Topics whose cited files (prune) or facts (stale) are looked up in history, at most. */
const MAX_PRUNE_TOPICS = 2000;
const READ_CHUNK = 2000;

/**
 * `brv dream`: finds what could be consolidated (without a model), proposes what it can, and records
 * every proposal of the run as ONE commit held on a review ref — never on the branch: `brv review
 * approve` lands it, `reject` discards it. Whatever a model answers is validated like any curate and may
 * only write the path its proposal names.
 */
export async function dream(store: ContextStore, options: DreamOptions): Promise<DreamOutcome> {
  const started = monotonicNow();
  const kinds = new Set<DreamKind>(options.kinds?.length ? options.kinds : DREAM_KINDS);
  const max = options.max ?? DEFAULT_MAX;
  if (!Number.isInteger(max) || max < 1) throw new BrvError('usage', `--max takes a whole number of candidates, 1 or more (got ${max}).`);
  const scope = options.scope === undefined ? undefined : normalizedScope(options.scope);
  const snapshot = await store.snapshot(options.branch);
  if (!snapshot.commit) throw new BrvError('not-initialized', `brv branch ${options.branch} has no commits yet. Run brv init.`);
  const notes: string[] = [];
  const progress = options.onProgress ?? (() => {});

  const { topics, html } = await readTopics(store, snapshot, scope, notes, progress);
  mark('dream: topics read');
  progress('compare', 0);
  const pairs = kinds.has('merge') || kinds.has('link') || kinds.has('synthesize') ? similarPairs(topics) : [];
  let candidates: DreamCandidate[] = relationCandidates(topics, pairs, kinds);
  mark('dream: topics compared');
  progress('history', 0);
  if (kinds.has('stale')) {
    let conflicts = factConflicts(topics);
    // Bounded like prune: the disagreements of at most MAX_PRUNE_TOPICS topics are dated through history.
    let dated = 0;
    conflicts = conflicts.filter((c) => (dated += c.entries.length) <= MAX_PRUNE_TOPICS);
    if (dated > MAX_PRUNE_TOPICS)
      notes.push(`stale: facts of more than ${MAX_PRUNE_TOPICS} topics disagree; only the first subjects were dated.`);
    if (conflicts.length > 0) {
      const involved = [...new Set(conflicts.flatMap((c) => c.entries.map((e) => e.topic)))];
      const changes = await lastChanges(
        store.repo,
        snapshot.commit.oid,
        involved.map((p) => topicBlobPath(p as TopicPath)),
      );
      const order = new Map<string, number>();
      for (const path of involved) {
        const change = changes.get(topicBlobPath(path as TopicPath));
        if (change) order.set(path, change.order);
      }
      candidates.push(...staleCandidates(conflicts, order));
    }
  }
  mark('dream: facts compared');
  if (kinds.has('prune')) candidates.push(...(await pruneCandidates(store, snapshot, topics, notes)));
  mark('dream: cited files checked');
  candidates.sort(
    (a, b) => b.score - a.score || DREAM_KINDS.indexOf(a.type) - DREAM_KINDS.indexOf(b.type) || a.topics[0]!.localeCompare(b.topics[0]!),
  );
  if (candidates.length > max) {
    notes.push(`${candidates.length} candidates found; the ${max} strongest are shown (--max).`);
    candidates = candidates.slice(0, max);
  }

  const results: DreamCandidateResult[] = candidates.map((c) => ({ ...c, status: 'listed' }));
  const edits = new Map<string, { html: string } | { remove: true }>();
  const proposals: DreamProposal[] = [];
  const touched = (paths: readonly string[]) => paths.some((p) => edits.has(p));
  // A topic an earlier run's proposals still wait on is not proposed again: that review is decided first.
  const waiting = await pendingDreamTopics(store);
  const heldElsewhere = (candidate: DreamCandidateResult, paths: readonly string[]): boolean => {
    const id = paths.map((p) => waiting.get(p)).find((x) => x !== undefined);
    if (id === undefined) return false;
    candidate.status = 'dropped';
    candidate.note = `already proposed in review ${id}: decide it first (brv review pending)`;
    return true;
  };
  const existing = new Set<string>(topics.map((t) => t.path));
  const byPath = new Map(topics.map((t) => [t.path as string, t]));
  const readHtml = async (path: string) => html.get(path) ?? (await readTopic(store, snapshot, path));

  // Model proposals first: they rewrite whole topics, so the small edits below step aside for them.
  const modelWork = results.filter((c) => c.type === 'merge' || c.type === 'synthesize');
  let asked = 0;
  for (const candidate of modelWork) {
    if (!options.model || options.dryRun) {
      candidate.status = 'needs-model';
      candidate.note = options.model ? 'a dry run asks no model' : 'needs a model: connect one with brv providers connect';
      continue;
    }
    const target = candidate.target!;
    const writes = candidate.type === 'merge' ? candidate.topics : [target];
    if (heldElsewhere(candidate, writes)) continue;
    if (touched(writes) || (candidate.type === 'synthesize' && existing.has(target))) {
      candidate.status = 'dropped';
      candidate.note = 'overlaps another proposal of this run';
      continue;
    }
    progress('model', asked++, modelWork.length);
    const sources = await Promise.all(candidate.topics.map(async (path) => ({ path, html: (await readHtml(path)) ?? '' })));
    const answer = await askModel(options.model, candidate, sources, await store.listDomains(snapshot), options.signal);
    if (!answer.ok) {
      candidate.status = 'dropped';
      candidate.note = answer.note;
      notes.push(`${candidate.type} of ${candidate.topics.join(', ')} dropped: ${answer.note}`);
      continue;
    }
    candidate.status = 'proposed';
    edits.set(target, { html: answer.html });
    const changes: DreamProposal['changes'] = [{ path: target, action: existing.has(target) ? 'update' : 'add' }];
    if (candidate.type === 'merge') {
      for (const path of candidate.topics.filter((p) => p !== target)) {
        edits.set(path, { remove: true });
        changes.push({ path, action: 'remove' });
      }
    }
    proposals.push({ type: candidate.type, why: candidate.why, changes });
  }
  if (modelWork.length > 0 && asked > 0) progress('model', asked, modelWork.length);

  for (const candidate of results.filter((c) => c.type === 'prune')) {
    const gone = candidate.files!.filter((f) => f.state === 'deleted');
    const path = candidate.topics[0]!;
    if (gone.length === 0 || gone.length < (byPath.get(path)?.files.length ?? Infinity)) {
      candidate.note = gone.length === 0 ? 'its files changed: check it against the code' : 'some of its files remain: update it by hand';
      continue;
    }
    if (heldElsewhere(candidate, [path])) continue;
    if (touched([path])) {
      candidate.status = 'dropped';
      candidate.note = 'overlaps another proposal of this run';
      continue;
    }
    candidate.status = 'proposed';
    edits.set(path, { remove: true });
    proposals.push({ type: 'prune', why: candidate.why, changes: [{ path, action: 'remove' }] });
  }

  // Links: every topic of a pair names the other in `related`, edited through the validator.
  const additions = new Map<string, string[]>();
  const linkOf = new Map<string, DreamCandidateResult[]>();
  for (const candidate of results.filter((c) => c.type === 'link')) {
    const [a, b] = candidate.topics as [string, string];
    if (heldElsewhere(candidate, [a, b])) continue;
    if (touched([a, b])) {
      candidate.status = 'dropped';
      candidate.note = 'overlaps another proposal of this run';
      continue;
    }
    for (const [from, to] of [
      [a, b],
      [b, a],
    ] as const) {
      additions.set(from, [...(additions.get(from) ?? []), to]);
      linkOf.set(from, [...(linkOf.get(from) ?? []), candidate]);
    }
  }
  const failedLinks = new Set<DreamCandidateResult>();
  const linked = new Map<string, string>();
  const sources = await Promise.all([...additions.keys()].map(readHtml));
  for (const [i, [path, targets]] of [...additions].entries()) {
    const source = sources[i];
    const updated = source === undefined ? undefined : await addRelated(source, targets);
    if (updated === undefined) for (const c of linkOf.get(path)!) failedLinks.add(c);
    else linked.set(path, updated);
  }
  for (const candidate of results.filter((c) => c.type === 'link' && c.status === 'listed')) {
    if (failedLinks.has(candidate)) {
      candidate.status = 'dropped';
      candidate.note = 'a topic of the pair could not be read or edited as a valid topic';
      continue;
    }
    candidate.status = 'proposed';
    const changes: DreamProposal['changes'] = [];
    for (const path of candidate.topics) {
      edits.set(path, { html: linked.get(path)! });
      changes.push({ path, action: 'update' });
    }
    proposals.push({ type: 'link', why: `${candidate.topics.join(' ↔ ')}: ${candidate.why}`, changes });
  }
  for (const candidate of results.filter((c) => c.status === 'listed' && !c.note)) {
    if (candidate.type === 'stale') candidate.note = 'listed for a person to decide: update or remove the older fact';
  }

  mark('dream: proposals made');
  const outcome: DreamOutcome = {
    branch: options.branch,
    scope,
    kinds: DREAM_KINDS.filter((k) => kinds.has(k)),
    topics: topics.length,
    candidates: results,
    proposals,
    notes,
    dryRun: options.dryRun ?? false,
    durationMs: 0,
  };
  if (!options.dryRun && proposals.length > 0) {
    progress('write', 0);
    outcome.review = await record(store, snapshot, options, edits, proposals);
  }
  outcome.durationMs = Math.round(monotonicNow() - started);
  return outcome;
}

/** Topics changed by dream commits still held on their review refs, and the review of each. */
async function pendingDreamTopics(store: ContextStore): Promise<Map<string, string>> {
  const waiting = new Map<string, string>();
  if (!(await store.repo.refsMayExist(REVIEW_PREFIX))) return waiting;
  for (const { ref, oid } of await store.repo.listRefs(REVIEW_PREFIX)) {
    const commit = await store.repo.readCommit(oid);
    if (!commit) continue;
    const { meta } = parseCommitMessage(commit.message);
    if (meta.op !== 'dream' || meta.gate !== 'held') continue;
    const parent = commit.parents[0] ? await store.repo.readCommit(commit.parents[0]) : undefined;
    if (!parent) continue;
    for (const change of await store.repo.diffTrees(parent.tree, commit.tree)) {
      const path = topicPathFromBlobPath(change.path);
      if (path) waiting.set(path, ref.slice(REVIEW_PREFIX.length));
    }
  }
  return waiting;
}

function normalizedScope(raw: string): string {
  const trimmed = raw.trim().replace(/^\/+|\/+$/g, '');
  const normalized = normalizeTopicPath(trimmed);
  if (!normalized.ok)
    throw new BrvError('usage', `--scope ${JSON.stringify(raw.slice(0, 100))} is not a folder of topics: ${normalized.error.message}`);
  return normalized.path;
}

async function readTopic(store: ContextStore, snapshot: Snapshot, path: string): Promise<string | undefined> {
  try {
    return (await store.readFile(snapshot, topicBlobPath(path as TopicPath), { maxBytes: MAX_STORED_TOPIC_BYTES }))?.toString('utf8');
  } catch {
    return undefined;
  }
}

/**
 * Every topic of the snapshot in scope, scanned; blobs over the stored-topic limit are not read. The
 * HTML of small trees is kept for the proposals (a large tree's topics are read again when proposed).
 */
async function readTopics(
  store: ContextStore,
  snapshot: Snapshot,
  scope: string | undefined,
  notes: string[],
  progress: NonNullable<DreamOptions['onProgress']>,
): Promise<{ topics: ScannedTopic[]; html: Map<string, string> }> {
  const blobs = (await store.listBlobs(snapshot)).filter((b) => {
    const path = topicPathFromBlobPath(b.path);
    return path !== undefined && (scope === undefined || path.startsWith(`${scope}/`));
  });
  mark('dream: topics listed');
  const tooLarge = blobs.filter((b) => b.size > MAX_STORED_TOPIC_BYTES);
  if (tooLarge.length > 0)
    notes.push(
      `${tooLarge.length} topic(s) over ${MAX_STORED_TOPIC_BYTES} bytes not read: ${tooLarge
        .slice(0, 3)
        .map((b) => b.path)
        .join(', ')}`,
    );
  const wanted = blobs.filter((b) => b.size <= MAX_STORED_TOPIC_BYTES);
  const topics: ScannedTopic[] = [];
  const html = new Map<string, string>();
  // Kept for the proposals unless the tree is very large (then proposed topics are read again).
  const keepHtml = wanted.reduce((sum, b) => sum + b.size, 0) <= 64 * 1024 * 1024;
  let unreadable = 0;
  for (let i = 0; i < wanted.length; i += READ_CHUNK) {
    const chunk = wanted.slice(i, i + READ_CHUNK);
    const contents = await readBlobs(
      store.repo,
      chunk.map((b) => b.oid),
    );
    chunk.forEach((b, j) => {
      const text = contents[j]?.toString('utf8');
      const path = topicPathFromBlobPath(b.path)!;
      const scanned = text === undefined ? undefined : scanTopic(path, b.oid, text);
      if (!scanned) unreadable++;
      else {
        topics.push(scanned);
        if (keepHtml) html.set(path, text!);
      }
    });
    progress('read', Math.min(i + READ_CHUNK, wanted.length), wanted.length);
  }
  if (unreadable > 0) notes.push(`${unreadable} file(s) with no <bv-topic> root skipped.`);
  return { topics, html };
}

/**
 * prune: topics whose cited files are gone from the project's code (its HEAD tree: deleted in its
 * history), or changed there after the topic was last changed. Bounded: at most MAX_PRUNE_TOPICS
 * topics, a few git commands per 300 paths.
 */
async function pruneCandidates(
  store: ContextStore,
  snapshot: Snapshot,
  topics: readonly ScannedTopic[],
  notes: string[],
): Promise<DreamCandidate[]> {
  let citing = topics.filter((t) => t.files.length > 0);
  if (citing.length === 0) return [];
  const { repo } = store;
  const head = (await repo.readObject('HEAD^{commit}'))?.oid;
  if (!head) {
    notes.push('prune: the project has no commit (HEAD), so cited files were not checked.');
    return [];
  }
  if (citing.length > MAX_PRUNE_TOPICS) {
    notes.push(`prune: ${citing.length} topics cite files; the first ${MAX_PRUNE_TOPICS} were checked.`);
    citing = citing.slice(0, MAX_PRUNE_TOPICS);
  }
  const files = [...new Set(citing.flatMap((t) => t.files))];
  const present = await presentPaths(repo, head, files);
  const missing = files.filter((f) => !present.has(f));
  const deleted = missing.length > 0 ? await lastChanges(repo, head, missing, { deleted: true }) : new Map();
  const changed = present.size > 0 ? await lastChanges(repo, head, [...present]) : new Map();
  const topicChanges = await lastChanges(
    repo,
    snapshot.commit!.oid,
    citing.map((t) => topicBlobPath(t.path)),
  );
  const out: DreamCandidate[] = [];
  for (const topic of citing) {
    const since = topicChanges.get(topicBlobPath(topic.path))?.time;
    const states: NonNullable<DreamCandidate['files']> = [];
    for (const file of topic.files) {
      const gone = deleted.get(file);
      if (gone) states.push({ file, state: 'deleted', commit: gone.commit });
      const change = changed.get(file);
      if (change && since !== undefined && change.time > since) states.push({ file, state: 'changed', commit: change.commit });
    }
    if (states.length === 0) continue;
    const gone = states.filter((s) => s.state === 'deleted');
    const describe = (s: (typeof states)[number]) =>
      `${s.file} (${s.state === 'deleted' ? 'deleted' : 'changed'} in ${s.commit.slice(0, 10)})`;
    out.push({
      type: 'prune',
      topics: [topic.path],
      score: Math.round(((gone.length + 0.5 * (states.length - gone.length)) / topic.files.length) * 1000) / 1000,
      why:
        gone.length === topic.files.length
          ? `every file it cites is gone from the code: ${states.map(describe).join(', ')}`
          : `cites ${states.map(describe).join(', ')}${gone.length ? '' : ' since the topic was last changed'}`,
      files: states,
    });
  }
  return out;
}

/**
 * The topic with `targets` added to its `related`, through the validator (its canonical form); undefined
 * if it is not a valid topic. The attribute is edited in the root's start tag and the topic validated
 * once: a full parse, edit and re-serialisation would cost twice that per linked topic.
 */
async function addRelated(html: string, targets: readonly string[]): Promise<string | undefined> {
  // Loaded only when a link is proposed: the validator is the HTML toolchain.
  const { validateTopicHtml } = await import('../../topic/validate.js');
  const open = ROOT_TAG.exec(html);
  if (!open) return undefined;
  const refs = targets.map((t) => `@${t}.html`).join(',');
  const existing = /\srelated\s*=\s*(?:"([^"]*)"|'([^']*)')/i.exec(open[0]);
  const tag = existing
    ? open[0].replace(
        existing[0],
        ` related="${[existing[1] ?? existing[2], refs]
          .filter((v) => v?.trim())
          .join(',')
          .replace(/"/g, '&quot;')}"`,
      )
    : open[0].replace(/\s*>$/, ` related="${refs}">`);
  const edited = validateTopicHtml(html.slice(0, open.index) + tag + html.slice(open.index + open[0].length));
  if (!edited.ok) return undefined;
  const named = new Set(edited.topic.related.filter((r) => r.ok).map((r) => (r as { path: string }).path));
  return targets.every((t) => named.has(t)) ? edited.topic.canonicalHtml : undefined;
}

/** The root's start tag, quoted values and all (a ">" inside a title does not end it). */
const ROOT_TAG = /<bv-topic\b(?:[^>"']|"[^"]*"|'[^']*')*>/i;

/**
 * The proposals as one commit on the tip that was read, held on a review ref (never on the branch,
 * whatever review.gate or review.enabled say: dream only proposes). If a topic it changes moved
 * meanwhile, nothing is recorded: the proposals were made from what is no longer there.
 */
async function record(
  store: ContextStore,
  read: Snapshot,
  options: DreamOptions,
  edits: Map<string, { html: string } | { remove: true }>,
  proposals: readonly DreamProposal[],
): Promise<{ id: string; commit: string } | undefined> {
  const entries = [...edits];
  // One hash-object for every new blob, not a round trip each.
  const written = await store.repo.writeBlobs(entries.flatMap(([, edit]) => ('remove' in edit ? [] : [edit.html])));
  let next = 0;
  const treeEdits: TreeEdit[] = entries.map(([path, edit]) => {
    const file = topicBlobPath(path as TopicPath);
    return 'remove' in edit ? { path: file, remove: true } : { path: file, blob: written[next++]! };
  });
  const counts = DREAM_KINDS.map((k) => [k, proposals.filter((p) => p.type === k).length] as const)
    .filter(([, n]) => n > 0)
    .map(([k, n]) => `${n} ${k}`);
  const lines = proposals.flatMap((p) =>
    p.changes.map((c) => `${p.type} ${topicBlobPath(c.path as TopicPath)}: ${c.action} — ${oneLine(p.why, 300)}`),
  );
  const outcome = await store.commit<true>(options.branch, async (snapshot) => {
    if (snapshot.commit?.oid !== read.commit?.oid) {
      const names = treeEdits.map((e) => e.path);
      const before = await store.repo.objectInfo(names.map((n) => `${read.commit!.tree}:${n}`));
      const now = snapshot.commit ? await store.repo.objectInfo(names.map((n) => `${snapshot.commit!.tree}:${n}`)) : [];
      if (names.some((_, i) => before[i]?.oid !== now[i]?.oid)) {
        throw new BrvError(
          'ref-moved',
          'Topics dream proposes to change were changed while it ran; nothing was recorded. Run brv dream again.',
        );
      }
    }
    return {
      write: {
        edits: treeEdits,
        subject: `dream: ${counts.join(', ')}`,
        meta: {
          op: 'dream',
          agent: options.agent,
          ...(options.modelName && proposals.some((p) => p.type === 'merge' || p.type === 'synthesize')
            ? { model: options.modelName }
            : {}),
          reason: 'consolidation proposed by brv dream',
          proposals: lines,
        },
      },
      result: true,
    };
  });
  if (!outcome.commit || !outcome.review) return undefined;
  return { id: outcome.review.id, commit: outcome.commit };
}
