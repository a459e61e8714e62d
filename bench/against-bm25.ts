/**
 * bench/against-bm25: issue 12's "never below plain BM25, on any category of any corpus" as a table.
 * Reads the results the retrieval benches wrote (bench/results/), brv's default ranking next to the
 * Lunr BM25 stand-in over the same topics, per corpus, split and category, and marks every figure
 * where brv is below. Run the benches first (`npm run bench:ranking` runs them, then this; bench/README.md);
 * a pair whose files are missing is reported as such. Comparing the default ranking over every corpus
 * in bench/results, it also writes bench/results/against-bm25.json (docs/performance.md reads it).
 *
 *   node --import tsx bench/against-bm25.ts [--results bench/results] [--splits validate,tune]
 *     [--configuration LABEL] [--corpora locomo-turn,locomo-session-haystack50,coding,docs]
 *
 * --configuration: a configuration of an --ablate or --try run (its label, e.g. `− passages`) in place of
 * the default ranking; --corpora: only these pairs (results file names without the split).
 *
 * Where both runs kept per-question metrics, each figure below also says on how many of the row's
 * questions brv is better (↑) and worse (↓) than the stand-in, with the exact two-sided sign test's p
 * (bench/lib/paired.ts); the last lines count the figures below and above with p < 0.05.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { comparePaired, inGroup, type PairedComparison } from './lib/paired.js';
import { RANKING_PAIRS as PAIRS } from './lib/ranking-table.js';
import { argValue, writeReport } from './lib/report.js';

interface Group {
  readonly key: string;
  readonly label?: string;
  readonly n: number;
  readonly metrics: Readonly<Record<string, number>>;
}

/** LoCoMo results give recalls in percent, the coding bench in fractions: show both as percent, MRR as a fraction. */
function display(metric: string, value: number, units: Readonly<Record<string, string>> | undefined): string {
  if (metric === 'mrr') return value.toFixed(3);
  return (units?.recall === 'percent' ? value : value * 100).toFixed(1);
}

interface QuestionRecord {
  readonly id: string;
  readonly category: string | number;
  /** Per-question values (fractions), written by the benches since 2026-12-02. */
  readonly metrics?: Readonly<Record<string, number>>;
}

interface Results {
  groups: Group[];
  questions?: QuestionRecord[];
  units?: Record<string, string>;
  source?: { commit?: string };
  /** --ablate / --try runs: every configuration's groups (locomo.ts `configurations`, coding.ts `ablation`). */
  configurations?: Array<{ label: string; groups: Group[]; questions?: QuestionRecord[] }>;
  ablation?: Array<{ label: string; groups: Group[]; questions?: QuestionRecord[] }>;
}

async function load(file: string): Promise<Results | undefined> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch {
    return undefined;
  }
}

/** --configuration LABEL: that configuration of an --ablate / --try run instead of the default ranking. */
function chosen(results: Results | undefined, label: string | undefined): Results | undefined {
  if (!results || label === undefined) return results;
  const configuration = (results.configurations ?? results.ablation ?? []).find((c) => c.label === label);
  if (!configuration) return undefined;
  // Configurations' groups carry no labels: take them from the default's.
  const labels = new Map(results.groups.map((g) => [g.key, g.label]));
  // Its questions carry no categories in older results: take them from the default's.
  const categories = new Map((results.questions ?? []).map((q) => [q.id, q.category]));
  return {
    ...results,
    groups: configuration.groups.map((g) => ({ ...g, label: g.label ?? labels.get(g.key) })),
    questions: configuration.questions?.map((q) => ({ ...q, category: q.category ?? categories.get(q.id)! })),
  };
}

/** brv against the stand-in, question by question, on one row and metric; undefined without per-question metrics. */
function paired(brv: Results, standIn: Results, key: string, metric: string): PairedComparison | undefined {
  const values = (results: Results) =>
    new Map((results.questions ?? []).flatMap((q) => (q.metrics?.[metric] === undefined ? [] : [[q.id, q.metrics[metric]!] as const])));
  const [a, b] = [values(brv), values(standIn)];
  if (a.size === 0 || b.size === 0) return undefined;
  const ids = (brv.questions ?? []).filter((q) => inGroup(key, q.category)).map((q) => q.id);
  return comparePaired(ids, a, b);
}

const pValue = (p: number) => (p >= 0.995 ? '1' : p.toFixed(2).replace(/^0/, ''));

const folder = argValue('results', 'bench/results');
const splits = argValue('splits', 'validate,tune').split(',');
const configuration = argValue('configuration', '') || undefined;
const corpora = argValue('corpora', '');
let below = 0;
let above = 0;
let compared = 0;
const significant = { below: 0, above: 0, tested: 0 };
/** Question-equivalents of each recall figure below: the gap × the questions of its row (exact for an all-or-nothing recall). */
const gaps: number[] = [];
/** Every figure below the stand-in, for the results file. */
const belowFigures: string[] = [];
for (const pair of PAIRS) {
  for (const split of splits) {
    const file = (name: string) => path.join(folder, `${name.replace('{split}', split)}.json`);
    if (corpora !== '' && !corpora.split(',').includes(pair.brv.replace('-{split}', ''))) continue;
    const [all, standIn] = await Promise.all([load(file(pair.brv)), load(file(pair.standIn))]);
    const brv = chosen(all, configuration);
    console.log(`\n${pair.corpus}, ${split} half — brv / Lunr BM25 stand-in (▼ = brv below; Nq = by N questions' worth of recall)`);
    if (!brv || !standIn) {
      console.log(`  missing: ${[!brv && file(pair.brv), !standIn && file(pair.standIn)].filter(Boolean).join(', ')}`);
      continue;
    }
    console.log(`| category | n | ${pair.metrics.join(' | ')} |`);
    console.log(`| --- | ---: | ${pair.metrics.map(() => '---:').join(' | ')} |`);
    for (const group of brv.groups) {
      const other = standIn.groups.find((g) => g.key === group.key);
      if (!other) continue;
      const cells = pair.metrics.map((metric) => {
        const [a, b] = [group.metrics[metric]!, other.metrics[metric]!];
        compared++;
        const worse = a < b - 1e-9;
        const test = worse || a > b + 1e-9 ? paired(brv, standIn, group.key, metric) : undefined;
        if (test) {
          significant.tested++;
          if (test.p < 0.05) significant[worse ? 'below' : 'above']++;
        }
        if (a > b + 1e-9) above++;
        let mark = '';
        if (worse) {
          below++;
          belowFigures.push(
            `${pair.corpus}, ${split}, ${group.label ?? group.key}, ${metric}: ${display(metric, a, brv.units)} / ${display(metric, b, standIn.units)}`,
          );
          mark = ' ▼';
          if (metric !== 'mrr') {
            const questions = ((b - a) / (brv.units?.recall === 'percent' ? 100 : 1)) * group.n;
            gaps.push(questions);
            mark += ` ${questions.toFixed(1)}q`;
          }
          if (test) mark += ` (↑${test.better} ↓${test.worse}, p ${pValue(test.p)})`;
        }
        return `${display(metric, a, brv.units)} / ${display(metric, b, standIn.units)}${mark}`;
      });
      console.log(`| ${group.label ?? group.key} | ${group.n} | ${cells.join(' | ')} |`);
    }
  }
}
console.log(`\n${below} of ${compared} figures below the stand-in (${above} above, ${compared - below - above} equal).`);
if (gaps.length > 0) {
  console.log(
    `The ${gaps.length} recall figures below are ${gaps.map((g) => g.toFixed(1)).join(', ')} questions' worth (the gap × the questions of the row).`,
  );
}
if (significant.tested > 0) {
  console.log(
    `Paired sign test over each row's questions (ties dropped; ${significant.tested} of the figures that differ had per-question metrics): ` +
      `${significant.below} of those below and ${significant.above} of those above the stand-in differ with p < 0.05.`,
  );
}
// The whole comparison of the default ranking is a result of its own (docs/performance.md reads it).
if (configuration === undefined && corpora === '' && path.resolve(folder) === path.resolve('bench/results') && compared > 0) {
  await writeReport('against-bm25', {
    splits,
    compared,
    below,
    above,
    equal: compared - below - above,
    significant,
    belowFigures,
  });
}
