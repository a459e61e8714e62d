import { analyze } from '../../index/analyze.js';
import type { ScannedTopic } from './scan.js';

import { DREAM_KINDS, type DreamKind } from './kinds.js';

export { DREAM_KINDS, type DreamKind };

/** Something worth consolidating, found without a model. */
export interface DreamCandidate {
  type: DreamKind;
  /** The topics it is about (merge: the one kept first; synthesize: the cluster; stale: the older, then the newer). */
  topics: string[];
  /** How strong the evidence is, 0–1 (merge and link: the similarity; prune: the share of cited files gone). */
  score: number;
  /** One line a person reads. */
  why: string;
  /** The topic a proposal would write: merge (the topic kept) and synthesize (the new overview). */
  target?: string;
  /** The folder of a synthesize cluster. */
  folder?: string;
  /** prune: the cited files that are gone or changed. */
  files?: DreamFileState[];
}

export interface DreamFileState {
  file: string;
  state: 'deleted' | 'changed';
  /** The project commit that deleted or last changed it. */
  commit: string;
}

/**
 * The thresholds, on tf-idf cosine similarity (log tf × ln(1 + N/df), each topic's 48 heaviest terms,
 * stemmed like the search index). Measured on the labelled fixture of test/dream/fixtures.ts (checked by
 * test/dream/candidates.test.ts): one topic written twice (reworded, reordered, a line added) scores
 * 0.66–0.95, topics about one subject from different angles 0.21–0.34, unrelated ones at most 0.13.
 * Each threshold sits between two groups, nearer the weaker one: a merge needs a person's approval
 * anyway, and a missed duplicate is found again on the next run.
 */
export const MERGE_THRESHOLD = 0.55;
export const LINK_THRESHOLD = 0.18;
const TERMS_PER_TOPIC = 48;
/** Files cited by more topics than this say nothing about any pair of them (a README, package.json). */
const MAX_TOPICS_PER_FILE = 12;
/** Similar topics kept per topic: enough for links and clusters, and bounded. */
const NEIGHBOURS = 8;
const OVERVIEW_NAMES = new Set(['overview', 'index', 'readme', 'summary', 'about']);

interface Vector {
  terms: number[];
  weights: number[];
  /** term → normalised weight, for exact dot products. */
  byTerm: Map<number, number>;
}

export interface SimilarPair {
  a: number;
  b: number;
  score: number;
  shared: string[];
}

/** Pairs scored exactly per topic: the ones sharing the most distinctive weight. */
const SHORTLIST = 24;

/**
 * tf-idf vectors of the topics and, for each, its most similar others at LINK_THRESHOLD or above.
 * Sparse: the pairs worth scoring are found through the postings of distinctive terms only (terms in
 * at most 3% of the topics: anything commoner would make the postings quadratic), then each shortlisted
 * pair gets its exact cosine over the whole vectors. 10,000 topics are compared in about a second, not
 * by 50 million comparisons.
 */
export function similarPairs(topics: readonly ScannedTopic[]): SimilarPair[] {
  const n = topics.length;
  const ids = new Map<string, number>();
  const names: string[] = [];
  const counts: Array<Map<number, number>> = [];
  const df: number[] = [];
  for (const topic of topics) {
    const tf = new Map<number, number>();
    for (const term of analyze(topic.text)) {
      let id = ids.get(term);
      if (id === undefined) {
        id = names.length;
        ids.set(term, id);
        names.push(term);
        df.push(0);
      }
      tf.set(id, (tf.get(id) ?? 0) + 1);
    }
    for (const id of tf.keys()) df[id]! += 1;
    counts.push(tf);
  }
  const maxDf = Math.max(24, Math.ceil(n * 0.03));
  const vectors: Vector[] = counts.map((tf) => {
    const weighted = [...tf]
      .map(([id, count]) => ({ id, w: (1 + Math.log(count)) * Math.log(1 + n / df[id]!) }))
      .sort((x, y) => y.w - x.w || x.id - y.id)
      .slice(0, TERMS_PER_TOPIC);
    const norm = Math.sqrt(weighted.reduce((sum, t) => sum + t.w * t.w, 0)) || 1;
    const terms = weighted.map((t) => t.id);
    const weights = weighted.map((t) => t.w / norm);
    return { terms, weights, byTerm: new Map(terms.map((t, i) => [t, weights[i]!])) };
  });
  const postings = new Map<number, Array<{ doc: number; w: number }>>();
  vectors.forEach((v, doc) => {
    v.terms.forEach((term, i) => {
      if (df[term]! > maxDf) return;
      let list = postings.get(term);
      if (!list) postings.set(term, (list = []));
      list.push({ doc, w: v.weights[i]! });
    });
  });
  const scratch = new Float64Array(n);
  const pairs: SimilarPair[] = [];
  for (let a = 0; a < n; a++) {
    const touched: number[] = [];
    const v = vectors[a]!;
    v.terms.forEach((term, i) => {
      const list = postings.get(term);
      if (!list) return;
      const wa = v.weights[i]!;
      for (const { doc, w } of list) {
        if (doc <= a) continue;
        if (scratch[doc] === 0) touched.push(doc);
        scratch[doc] = scratch[doc]! + wa * w;
      }
    });
    const shortlist = touched.sort((x, y) => scratch[y]! - scratch[x]! || x - y).slice(0, SHORTLIST);
    for (const b of touched) scratch[b] = 0;
    const scored = shortlist
      .map((b) => {
        const other = vectors[b]!.byTerm;
        let dot = 0;
        v.terms.forEach((term, i) => (dot += v.weights[i]! * (other.get(term) ?? 0)));
        return { b, score: Math.min(1, dot) };
      })
      .filter((x) => x.score >= LINK_THRESHOLD)
      .sort((x, y) => y.score - x.score || x.b - y.b)
      .slice(0, NEIGHBOURS);
    for (const { b, score } of scored) {
      const other = vectors[b]!.byTerm;
      // The distinctive terms they share, heaviest first.
      const shared = v.terms.filter((term) => other.has(term) && df[term]! <= maxDf).slice(0, 4);
      pairs.push({
        a,
        b,
        score,
        shared: (shared.length > 0 ? shared : v.terms.filter((t) => other.has(t)).slice(0, 4)).map((t) => names[t]!),
      });
    }
  }
  return pairs;
}

/** Whether either topic's `related` names the other. */
function linked(a: ScannedTopic, b: ScannedTopic): boolean {
  return a.related.includes(b.path) || b.related.includes(a.path);
}

function folderOf(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? '' : path.slice(0, slash);
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** merge, link and synthesize candidates among `topics` (all in scope). */
export function relationCandidates(
  topics: readonly ScannedTopic[],
  pairs: readonly SimilarPair[],
  kinds: ReadonlySet<DreamKind>,
): DreamCandidate[] {
  const out: DreamCandidate[] = [];
  const merged = new Set<number>();
  const mergePairs = new Set<string>();
  const key = (a: number, b: number) => (a < b ? `${a} ${b}` : `${b} ${a}`);
  const byScore = [...pairs].sort((x, y) => y.score - x.score || x.a - y.a || x.b - y.b);
  for (const pair of byScore) {
    if (pair.score < MERGE_THRESHOLD) break;
    mergePairs.add(key(pair.a, pair.b));
    if (!kinds.has('merge') || merged.has(pair.a) || merged.has(pair.b)) continue;
    merged.add(pair.a).add(pair.b);
    const [a, b] = [topics[pair.a]!, topics[pair.b]!];
    // The fuller topic keeps its path (fewer links elsewhere break); ties: the first in path order.
    const [keep, drop] = b.text.length > a.text.length ? [b, a] : [a, b];
    out.push({
      type: 'merge',
      topics: [keep.path, drop.path],
      score: round(pair.score),
      why: `${Math.round(pair.score * 100)}% similar (shared terms: ${pair.shared.join(', ')}): one topic written twice`,
      target: keep.path,
    });
  }
  // Pairs that cite the same file, with the file (the rarer the file, the stronger the hint).
  const byFile = new Map<string, number[]>();
  topics.forEach((topic, i) => {
    for (const file of topic.files) {
      const list = byFile.get(file);
      if (list) list.push(i);
      else byFile.set(file, [i]);
    }
  });
  const filePairs = new Map<string, { a: number; b: number; file: string }>();
  for (const [file, list] of byFile) {
    if (list.length < 2 || list.length > MAX_TOPICS_PER_FILE) continue;
    for (let i = 0; i < list.length; i++)
      for (let j = i + 1; j < list.length; j++)
        if (!filePairs.has(key(list[i]!, list[j]!))) filePairs.set(key(list[i]!, list[j]!), { a: list[i]!, b: list[j]!, file });
  }
  const edges: Array<[number, number]> = [];
  if (kinds.has('link')) {
    const seen = new Set<string>();
    for (const pair of byScore) {
      const k = key(pair.a, pair.b);
      if (mergePairs.has(k) || seen.has(k)) continue;
      seen.add(k);
      const [a, b] = [topics[pair.a]!, topics[pair.b]!];
      if (linked(a, b)) continue;
      const file = filePairs.get(k)?.file;
      out.push({
        type: 'link',
        topics: [a.path, b.path],
        score: round(pair.score),
        why: `share distinctive terms (${pair.shared.join(', ')})${file ? ` and both cite ${file}` : ''}, but neither links the other`,
      });
    }
    for (const [k, { a, b, file }] of filePairs) {
      if (mergePairs.has(k) || seen.has(k)) continue;
      seen.add(k);
      if (linked(topics[a]!, topics[b]!)) continue;
      out.push({
        type: 'link',
        topics: [topics[a]!.path, topics[b]!.path],
        score: round(Math.min(0.9, 0.5 + 0.4 / (byFile.get(file)!.length - 1))),
        why: `both cite ${file}, but neither links the other`,
      });
    }
  }
  if (kinds.has('synthesize')) {
    for (const pair of pairs) edges.push([pair.a, pair.b]);
    for (const { a, b } of filePairs.values()) edges.push([a, b]);
    const index = new Map(topics.map((t, i) => [t.path as string, i]));
    topics.forEach((topic, i) => {
      for (const ref of topic.related) {
        const j = index.get(ref);
        if (j !== undefined && j !== i) edges.push([i, j]);
      }
    });
    out.push(...synthesizeCandidates(topics, edges));
  }
  return out;
}

/** Clusters of at least three connected topics in one folder that nothing gives an overview of. */
function synthesizeCandidates(topics: readonly ScannedTopic[], edges: ReadonlyArray<[number, number]>): DreamCandidate[] {
  const parent = topics.map((_, i) => i);
  const find = (i: number): number => {
    while (parent[i] !== i) i = parent[i] = parent[parent[i]!]!;
    return i;
  };
  for (const [a, b] of edges) {
    if (folderOf(topics[a]!.path) !== folderOf(topics[b]!.path)) continue;
    parent[find(a)] = find(b);
  }
  const groups = new Map<number, number[]>();
  topics.forEach((_, i) => {
    const root = find(i);
    const list = groups.get(root);
    if (list) list.push(i);
    else groups.set(root, [i]);
  });
  const paths = new Set<string>(topics.map((t) => t.path));
  const out: DreamCandidate[] = [];
  for (const members of groups.values()) {
    if (members.length < 3) continue;
    const folder = folderOf(topics[members[0]!]!.path);
    if (folder === '' || paths.has(folder)) continue;
    const inFolder = topics.filter((t) => folderOf(t.path) === folder);
    if (inFolder.some((t) => OVERVIEW_NAMES.has(t.path.slice(folder.length + 1).toLowerCase()))) continue;
    const names = members.map((i) => topics[i]!.path);
    // A topic that links every other member (or the folder itself) is already the overview.
    if (
      members.some(
        (i) => topics[i]!.related.includes(folder) || names.every((p) => p === topics[i]!.path || topics[i]!.related.includes(p)),
      )
    )
      continue;
    const shown = names.slice(0, 8);
    out.push({
      type: 'synthesize',
      topics: shown,
      folder,
      target: `${folder}/overview`,
      score: round(Math.min(1, members.length / 10)),
      why: `${members.length} connected topics in ${folder}/ (linked, similar or citing the same files) and no overview of them`,
    });
  }
  return out;
}

/** A fact's subject as compared: case, spaces, `-` and `_` do not matter. */
function subjectKey(subject: string): string {
  return subject.toLowerCase().replace(/[\s_-]+/g, '_');
}

function valueKey(value: string): string {
  return value
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[.;]+$/, '')
    .trim();
}

/** Topics whose facts disagree on one subject: the sets whose last change dates decide which is stale. */
export function factConflicts(
  topics: readonly ScannedTopic[],
): Array<{ subject: string; entries: Array<{ topic: string; value: string }> }> {
  const bySubject = new Map<string, Array<{ topic: string; value: string }>>();
  for (const topic of topics) {
    for (const fact of topic.facts) {
      const k = subjectKey(fact.subject);
      const list = bySubject.get(k) ?? [];
      if (!list.some((e) => e.topic === topic.path && valueKey(e.value) === valueKey(fact.value)))
        list.push({ topic: topic.path, value: fact.value });
      bySubject.set(k, list);
    }
  }
  const out = [];
  for (const [subject, entries] of bySubject) {
    const topicsOf = new Set(entries.map((e) => e.topic));
    const values = new Set(entries.map((e) => valueKey(e.value)));
    if (topicsOf.size >= 2 && values.size >= 2 && entries.length <= 50) out.push({ subject, entries });
  }
  return out;
}

/**
 * stale: for each disagreement, the newest topic's value stands and every older topic stating another
 * value is superseded. `order` ranks topics by their last change (0 = most recent); a tie decides nothing.
 */
export function staleCandidates(conflicts: ReturnType<typeof factConflicts>, order: ReadonlyMap<string, number>): DreamCandidate[] {
  const out: DreamCandidate[] = [];
  for (const { subject, entries } of conflicts) {
    const ranked = entries.filter((e) => order.has(e.topic)).sort((x, y) => order.get(x.topic)! - order.get(y.topic)!);
    const newest = ranked[0];
    if (!newest) continue;
    if (ranked.some((e) => e.topic !== newest.topic && order.get(e.topic) === order.get(newest.topic))) continue;
    const seen = new Set<string>();
    for (const entry of ranked.slice(1)) {
      if (entry.topic === newest.topic || valueKey(entry.value) === valueKey(newest.value) || seen.has(entry.topic)) continue;
      seen.add(entry.topic);
      out.push({
        type: 'stale',
        topics: [entry.topic, newest.topic],
        score: 0.8,
        why: `fact "${subject}": ${entry.topic} says "${clip(entry.value)}", the more recently changed ${newest.topic} says "${clip(newest.value)}"`,
      });
    }
  }
  return out;
}

function clip(value: string): string {
  return value.length > 60 ? `${value.slice(0, 59)}…` : value;
}
