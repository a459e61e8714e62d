/**
 * bench/ranking: issue 12's whole validation discipline in one command. Runs every retrieval bench
 * of the decision — LoCoMo turns, LoCoMo sessions, sessions in haystacks of 50 and the coding corpus,
 * on the tune and the validate half, with brv and with the Lunr BM25 stand-in over the same topics —
 * then `bench/against-bm25.ts` over what they wrote. Each bench is its own process (as run by hand),
 * one after the other; about 1 minute in all, 5–10 with --ablate.
 *
 *   node --import tsx bench/ranking.ts [--locomo ../shared/bench-data/locomo/locomo10.json]
 *     [--splits tune,validate] [--ablate | --try=LIST]
 *
 * --ablate / --try=LIST go to brv's runs (each feature off / the listed rankings, docs/decisions/0007-ranking-features.md); `bench/against-bm25.ts --configuration LABEL` then compares any of them.
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { argValue } from './lib/report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const locomo = path.resolve(argValue('locomo', path.join(root, '../shared/bench-data/locomo/locomo10.json')));
const splits = argValue('splits', 'tune,validate').split(',');
const brvOptions = [...(process.argv.includes('--ablate') ? ['--ablate'] : []), ...process.argv.filter((arg) => arg.startsWith('--try='))];
for (const split of splits) {
  if (split !== 'tune' && split !== 'validate') {
    console.error(`Unknown split "${split}": tune, validate.`);
    process.exit(2);
  }
}
if (!existsSync(locomo)) {
  console.error(`No LoCoMo data at ${locomo}: pass --locomo <locomo10.json>.`);
  process.exit(2);
}

const corpora: Array<{ name: string; args: string[] }> = [
  { name: 'LoCoMo turns', args: ['bench/locomo.ts', locomo, '--variant', 'turn'] },
  { name: 'LoCoMo sessions', args: ['bench/locomo.ts', locomo, '--variant', 'session'] },
  { name: 'sessions in haystacks of 50', args: ['bench/locomo.ts', locomo, '--variant', 'session', '--haystack', '50'] },
  { name: 'coding corpus', args: ['bench/coding.ts'] },
];

const started = performance.now();
for (const split of splits) {
  for (const corpus of corpora) {
    for (const retriever of ['brv', 'stand-in']) {
      const args = [...corpus.args, '--split', split, '--retriever', retriever, ...(retriever === 'brv' ? brvOptions : [])];
      const start = performance.now();
      // The benches print their tables; only the one-line summary of each run is shown here.
      const run = await execa('node', ['--import', 'tsx', ...args], { cwd: root, reject: false, all: true });
      if (run.exitCode !== 0) {
        console.error(`${corpus.name}, ${split}, ${retriever}: failed (exit ${run.exitCode})\n${run.all ?? ''}`);
        process.exit(1);
      }
      console.error(`${corpus.name}, ${split}, ${retriever}: ${((performance.now() - start) / 1000).toFixed(1)} s`);
    }
  }
}
console.error(`all runs: ${((performance.now() - started) / 1000).toFixed(0)} s`);
const table = await execa('node', ['--import', 'tsx', 'bench/against-bm25.ts', '--splits', splits.join(',')], { cwd: root, reject: false });
process.stdout.write(`${table.stdout}\n`);
if (table.exitCode !== 0) {
  console.error(table.stderr);
  process.exit(1);
}
