/**
 * bench/ranking: the whole validation discipline (issues 12 and 34) in one command. Runs every
 * retrieval bench of the decision — three corpora: LoCoMo (turns, sessions, sessions in haystacks of
 * 50), the coding corpus and the long-documents corpus (fixtures/docs-corpus/), on the tune and the
 * validate half, with brv and with the Lunr BM25 stand-in over the same topics — then
 * `bench/against-bm25.ts` over what they wrote, then the corpora side by side per category with the
 * paired 95 % interval of brv − BM25 (bench/lib/ranking-table.ts), and with --ablate each feature's own
 * effect (default − that feature off) with its interval. Each bench is its own process (as run by hand),
 * one after the other; about 2 minutes in all, 10–15 with --ablate. Writes bench/results/ranking.json.
 *
 *   node --import tsx bench/ranking.ts [--locomo ../shared/bench-data/locomo/locomo10.json]
 *     [--splits tune,validate] [--ablate | --try=LIST] [--corpora locomo-turn,locomo-session,locomo-haystack,coding,docs]
 *
 * --ablate / --try=LIST go to brv's runs (each feature off / the listed rankings, docs/decisions/0007-ranking-features.md); `bench/against-bm25.ts --configuration LABEL` then compares any of them.
 * --corpora: run only these benches; the tables still read every corpus's latest results file.
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { featureEffects, formatFeatureEffects, formatSideBySide, sideBySide } from './lib/ranking-table.js';
import { argValue, writeReport } from './lib/report.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const locomo = path.resolve(argValue('locomo', path.join(root, '../shared/bench-data/locomo/locomo10.json')));
const splits = argValue('splits', 'tune,validate').split(',');
const only = argValue('corpora', '');
const brvOptions = [...(process.argv.includes('--ablate') ? ['--ablate'] : []), ...process.argv.filter((arg) => arg.startsWith('--try='))];
for (const split of splits) {
  if (split !== 'tune' && split !== 'validate') {
    console.error(`Unknown split "${split}": tune, validate.`);
    process.exit(2);
  }
}
if (!existsSync(locomo) && (only === '' || only.includes('locomo'))) {
  console.error(`No LoCoMo data at ${locomo}: pass --locomo <locomo10.json>.`);
  process.exit(2);
}

const ALL_CORPORA: Array<{ key: string; name: string; args: string[] }> = [
  { key: 'locomo-turn', name: 'LoCoMo turns', args: ['bench/locomo.ts', locomo, '--variant', 'turn'] },
  { key: 'locomo-session', name: 'LoCoMo sessions', args: ['bench/locomo.ts', locomo, '--variant', 'session'] },
  {
    key: 'locomo-haystack',
    name: 'sessions in haystacks of 50',
    args: ['bench/locomo.ts', locomo, '--variant', 'session', '--haystack', '50'],
  },
  { key: 'coding', name: 'coding corpus', args: ['bench/coding.ts'] },
  { key: 'docs', name: 'long-documents corpus', args: ['bench/coding.ts', '--corpus', 'fixtures/docs-corpus'] },
];
const corpora = only === '' ? ALL_CORPORA : ALL_CORPORA.filter((c) => only.split(',').includes(c.key));
if (corpora.length === 0) {
  console.error(`Unknown --corpora ${only}: ${ALL_CORPORA.map((c) => c.key).join(', ')}.`);
  process.exit(2);
}

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

// The corpora side by side: validate first (the half that decides), then tune.
const halves = ['validate', 'tune'].filter((s) => splits.includes(s));
const side = await sideBySide(path.join(root, 'bench/results'), halves);
console.log(`\nThe corpora side by side — brv's default ranking / the Lunr BM25 stand-in, Δ = brv − BM25 with its paired 95 % interval:\n`);
console.log(formatSideBySide(side.rows));
if (side.missing.length > 0) console.log(`\nno results for: ${side.missing.join('; ')}`);
const features = brvOptions.length > 0 ? await featureEffects(path.join(root, 'bench/results'), halves) : undefined;
if (features) {
  console.log(`\nEach configuration against the default (Δ = default − it; > 0: what it turns off helps), paired 95 % interval:\n`);
  console.log(formatFeatureEffects(features));
}
const below = side.rows.filter((r) => !r.atOrAbove);
console.log(
  `\n${side.rows.length - below.length} of ${side.rows.length} rows at or above BM25 within the interval` +
    (below.length > 0 ? `; below: ${below.map((r) => `${r.corpus}, ${r.split}, ${r.category}`).join('; ')}` : ''),
);
if (features) {
  const losses = features.filter((r) => !r.atOrAbove && r.configuration.startsWith('− '));
  console.log(
    losses.length === 0
      ? 'No feature is a loss beyond its interval on any corpus, half or category.'
      : `Features that lose beyond the interval: ${losses.map((r) => `${r.configuration.slice(2)} (${r.corpus}, ${r.split}, ${r.category})`).join('; ')}`,
  );
}
await writeReport(`ranking${brvOptions.length > 0 ? '-ablate' : ''}`, {
  splits: halves,
  options: brvOptions,
  corpora: corpora.map((c) => c.key),
  interval: 'paired t interval, 95 %, of the per-question difference (bench/lib/paired.ts pairedInterval)',
  sideBySide: side.rows,
  missing: side.missing,
  features,
});
