import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const CLI = path.join(ROOT, 'dist/cli/main.js');
/** The benches' process environment: the user's, with a fixed identity so commits always work. */
export const BENCH_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@example.com',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@example.com',
};

export function argValue(name: string, fallback: string): string {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 && process.argv[i + 1] !== undefined ? process.argv[i + 1]! : fallback;
}

export function percentiles(values: readonly number[]): { p50: number; p95: number; min: number; max: number; n: number } {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
  const round = (v: number) => Math.round(v * 10) / 10;
  return { p50: round(at(50)), p95: round(at(95)), min: round(sorted[0]!), max: round(sorted[sorted.length - 1]!), n: sorted.length };
}

/** The command line that ran this bench, as a reader would type it from the repository's root. */
function benchCommand(root: string): string {
  const script = process.argv[1] ? path.relative(root, process.argv[1]) : 'bench';
  const quote = (arg: string) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replaceAll("'", "'\\''")}'`);
  return ['node', '--import', 'tsx', script, ...process.argv.slice(2)].map(quote).join(' ');
}

/**
 * Writes bench/results/<name>.json with the machine it ran on, the commit measured and the command, so
 * docs/performance.md (`npm run docs:performance`) can say what produced each figure.
 */
export async function writeReport(name: string, data: object): Promise<string> {
  const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
  const out = path.join(root, 'bench/results');
  await mkdir(out, { recursive: true });
  const file = path.join(out, `${name}.json`);
  const machine = {
    node: process.version,
    git: (await execa('git', ['version'])).stdout,
    cpus: os.cpus().length,
    cpu: os.cpus()[0]?.model,
    memoryGiB: Math.round(os.totalmem() / 2 ** 30),
  };
  const commit = (await execa('git', ['rev-parse', '--short', 'HEAD'], { cwd: root, reject: false })).stdout.trim() || undefined;
  const report = { benchmark: name, date: new Date().toISOString(), commit, command: benchCommand(root), machine, ...data };
  await writeFile(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(`wrote ${path.relative(root, file)}`);
  return file;
}

/**
 * Which brv a retrieval bench measured: this checkout's commit and whether src/ has uncommitted
 * changes. Also gives the bench's own commits an identity (a CI machine may have none).
 */
export async function measuredSource(): Promise<{ commit: string | undefined; srcDirty: boolean }> {
  process.env.GIT_AUTHOR_NAME ??= 'brv-bench';
  process.env.GIT_AUTHOR_EMAIL ??= 'bench@example.com';
  process.env.GIT_COMMITTER_NAME ??= 'brv-bench';
  process.env.GIT_COMMITTER_EMAIL ??= 'bench@example.com';
  const [head, status] = await Promise.all([
    execa('git', ['rev-parse', 'HEAD'], { cwd: ROOT, reject: false }),
    execa('git', ['status', '--porcelain', '--', 'src'], { cwd: ROOT, reject: false }),
  ]);
  return { commit: head.stdout.trim() || undefined, srcDirty: status.stdout.trim() !== '' };
}

/**
 * Waits (up to a minute) until no `brv maintenance` holds the repository's lock: a query that leaves
 * its index due starts one in the background, which must not run into the next measurement (or
 * into the repository's removal).
 */
export async function waitForMaintenance(repo: string): Promise<void> {
  const indexRoot = path.join(repo, '.git', 'brv', 'index');
  for (let waited = 0; waited < 60_000; waited += 100) {
    const versions = await readdir(indexRoot).catch(() => [] as string[]);
    if (!versions.some((v) => existsSync(path.join(indexRoot, v, 'maintenance.lock')))) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
