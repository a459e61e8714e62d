/**
 * bench/attack/oversized-blobs: issue 31 finding 4 at full size. A topic blob of --mb MB (default 600),
 * planted with plumbing as a teammate's push would, is added in a commit beside an ordinary change;
 * then `brv vc diff`, `brv vc show` (text and JSON), `brv read` and `brv vc merge` of a branch that grew a
 * topic over the limit run against it, each under GNU time (the peak includes git children it waited for),
 * and their peak RSS, wall time, exit code and error kind are reported. brv must answer a typed
 * `too-large` (a problem in the diff, an error for the topic itself), never `internal-error`, and never
 * hold the blob: peak RSS stays far below its size. Usage:
 *   npm run build && node --import tsx bench/attack/oversized-blobs.ts [--mb 600] [--cli dist/cli/main.js]
 * The RSS check means something only for blobs far above Node's own ~50-70 MB (use --mb 300 or more).
 * `--cli` runs another build (a base commit's) for a before/after figure. Needs /usr/bin/time (GNU).
 * Writes bench/results/attack-oversized-blobs.json; exits 1 when a command fails untyped or brv's own
 * peak RSS reaches the blob's size. The figure with children shows git's share (merge-tree would
 * merge an oversized path in memory if brv gave it one: see docs/archive/bench-notebook-2026.md, "Oversized topics").
 */
import { execa } from 'execa';
import { createWriteStream } from 'node:fs';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { once } from 'node:events';
import { argValue, BENCH_ENV, CLI, writeReport } from '../lib/report.js';

const mb = Number(argValue('mb', '600'));
const cli = path.resolve(argValue('cli', CLI));
const dir = await mkdtemp(path.join(os.tmpdir(), 'brv-oversized-'));
const env = { ...BENCH_ENV, HOME: dir, GIT_CONFIG_NOSYSTEM: '1', BRV_CODE_CACHE: '0' };
const git = async (args: string[], extra: Record<string, string> = {}) =>
  (await execa('git', args, { cwd: path.join(dir, 'repo'), env: { ...env, ...extra } })).stdout.trim();

const topic = (p: string, body: string) => `<bv-topic path="${p}" title="${p}"><bv-rule id="r1">${body}</bv-rule></bv-topic>\n`;

try {
  await execa('git', ['init', '-q', path.join(dir, 'repo')], { env });
  await git(['commit', '-q', '--allow-empty', '-m', 'code']);
  // The blob: written to a file in 1 MB pieces (this process never holds it), then hashed by git.
  const file = path.join(dir, 'huge.html');
  const out = createWriteStream(file);
  out.write('<bv-topic path="x/huge" title="Huge"><bv-rule id="r1">');
  const piece = 'tokens '.repeat(Math.floor((1024 * 1024) / 7));
  for (let i = 0; i < mb; i++) if (!out.write(piece)) await once(out, 'drain');
  out.end('</bv-rule></bv-topic>\n');
  await once(out, 'finish');
  const started = performance.now();
  const hugeOid = await git(['hash-object', '-w', file]);
  const plantSeconds = Math.round((performance.now() - started) / 100) / 10;
  await rm(file);

  const index = { GIT_INDEX_FILE: path.join(dir, 'index') };
  const commit = async (files: Record<string, string>, parent: string | undefined, message: string) => {
    await rm(index.GIT_INDEX_FILE, { force: true });
    for (const [p, oid] of Object.entries(files)) await git(['update-index', '--add', '--cacheinfo', `100644,${oid},${p}`], index);
    const tree = await git(['write-tree'], index);
    return git(['commit-tree', tree, ...(parent ? ['-p', parent] : []), '-m', message]);
  };
  const hash = (content: string) =>
    execa('git', ['hash-object', '-w', '--stdin'], { cwd: path.join(dir, 'repo'), env, input: content }).then((r) => r.stdout.trim());
  const format = await hash('1\n');
  const base = await commit(
    { '.brv/format': format, 'auth/tokens.html': await hash(topic('auth/tokens', 'Rotate tokens every hour.')) },
    undefined,
    'base',
  );
  const changed = await commit(
    {
      '.brv/format': format,
      'auth/tokens.html': await hash(topic('auth/tokens', 'Rotate tokens every ten minutes.')),
      'x/huge.html': hugeOid,
    },
    base,
    'planted with plumbing',
  );
  await git(['update-ref', 'refs/brv/heads/main', changed]);
  // A branch that grew auth/tokens over the limit, while main changed it too: a topic-level merge.
  const feature = await commit({ '.brv/format': format, 'auth/tokens.html': hugeOid }, base, 'feature: auth/tokens grown over the limit');
  await git(['update-ref', 'refs/brv/heads/feature', feature]);

  const runs: Array<Record<string, unknown>> = [];
  let failed = false;
  for (const args of [
    ['vc', 'diff', `${base}..${changed}`],
    ['vc', 'diff', `${base}..${changed}`, '--format', 'json'],
    ['vc', 'show', changed],
    ['vc', 'show', changed, '--format', 'json'],
    ['read', 'x/huge', '--format', 'json'],
    ['vc', 'merge', 'feature', '--format', 'json'],
  ]) {
    const timing = path.join(dir, 'time.txt');
    // GNU time's peak includes the git children brv waited for; the hook prints brv's own (Node's maxRSS).
    const own = `data:text/javascript,process.on('exit',()=>process.stderr.write('brv-own-maxrss '+process.resourceUsage().maxRSS+'\\n'))`;
    const run = await execa('/usr/bin/time', ['-o', timing, '-f', '%M %e', process.execPath, '--import', own, cli, ...args], {
      cwd: path.join(dir, 'repo'),
      env,
      reject: false,
      maxBuffer: 64 * 1024 * 1024,
    });
    const [rssKb, seconds] = (await readFile(timing, 'utf8')).trim().split('\n').pop()!.split(' ').map(Number);
    const kinds = [...new Set([...run.stdout.matchAll(/"kind":"([a-z-]+)"/g)].map((m) => m[1]))];
    const textProblem = /not shown \(too-large\)/.test(run.stdout);
    const peakMb = Math.round(rssKb! / 1024);
    const ownMb = Math.round(Number(/brv-own-maxrss (\d+)/.exec(run.stderr)?.[1] ?? NaN) / 1024);
    // The merge keeps main's readable auth/tokens and lists it as a conflict (a review names it).
    const merged = args[1] === 'merge' && run.exitCode === 0 && /"conflicts":\["auth\/tokens"\]/.test(run.stdout);
    const ok = !kinds.includes('internal-error') && (kinds.includes('too-large') || textProblem || merged) && ownMb < mb;
    if (!ok) failed = true;
    runs.push({
      command: `brv ${args.join(' ')}`,
      exitCode: run.exitCode,
      peakRssMb: peakMb,
      brvOwnPeakRssMb: ownMb,
      seconds,
      kinds,
      textProblem,
      merged,
      ok,
    });
    console.error(
      `${ok ? 'ok  ' : 'FAIL'} brv ${args.join(' ')}: exit ${run.exitCode}, peak RSS ${peakMb} MB (brv itself ${ownMb} MB), ${seconds} s, kinds ${kinds.join(',') || '-'}`,
    );
  }
  const nodeFloor = await execa('/usr/bin/time', ['-f', '%M', process.execPath, '-e', '0'], { reject: false });
  const result = { blobMb: mb, cli, plantSeconds, nodeFloorRssMb: Math.round(Number(nodeFloor.stderr.trim()) / 1024), runs };
  console.log(JSON.stringify(result, null, 2));
  await writeReport('attack-oversized-blobs', result);
  if (failed) process.exitCode = 1;
} finally {
  await rm(dir, { recursive: true, force: true });
}
