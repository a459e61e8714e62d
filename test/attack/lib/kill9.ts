/**
 * Campaign 1, kill -9: brv is killed with SIGKILL at random points of curate, import, merge, push,
 * sync, review reject and the first index build. After each kill, once its orphaned git children
 * have exited: `git fsck` is clean, no `*.lock` is left, the brv branch is in its old state or its new
 * state (never a mix), every curate that reported success is still there, and the same command,
 * run again, works. Shared by test/process/kill9.test.ts (a few kills) and bench/attack/kill9.ts.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { ENV, brvJson, cleanup, git } from '../../helpers/repo.js';
import { twoClones } from '../../helpers/knowledge.js';
import { plumbCommit, repositoryProblems, runCli, seededRandom, tipOf, topicHtml, treeOf, type CliRun } from './processes.js';

export const KILL_OPERATIONS = ['curate', 'import', 'merge', 'push', 'sync', 'reject', 'index'] as const;
export type KillOperation = (typeof KILL_OPERATIONS)[number];

export interface KillReport {
  runs: number;
  seed: number;
  /** Runs where the process was still running when SIGKILL came (the others had finished first). */
  killed: number;
  byOperation: Record<string, { runs: number; killed: number; meanMs: number }>;
  /** Every finding, one line each; the campaign passes when this is empty. */
  problems: string[];
  seconds: number;
}

const MAIN = 'refs/brv/heads/main';

interface World {
  root: string;
  /** The clone every operation runs in. */
  a: string;
  /** Its bare remote (`origin`). */
  bare: string;
  files: string;
  /** Topic file path → a word only that topic holds: every curate that reported success. */
  reported: Map<string, string>;
  /** How long the last command run again to the end took: the next kill delays are drawn within it. */
  lastCompletedMs: number;
}

async function makeWorld(): Promise<World> {
  const { root, bare, a } = await twoClones();
  const init = await brvJson(a, ['init', '--track', 'origin']);
  if (!init.json?.success) throw new Error(`init failed: ${init.stdout} ${init.stderr}`);
  const files = path.join(root, 'files');
  await mkdir(files);
  const seed = path.join(files, 'seed.html');
  await writeFile(seed, topicHtml('base/seed', 'seedword'));
  for (const args of [
    ['curate', '--html-file', seed],
    ['vc', 'push', '-u'],
  ]) {
    const run = await brvJson(a, args);
    if (!run.json?.success) throw new Error(`${args.join(' ')} failed: ${run.stdout} ${run.stderr}`);
  }
  return { root, a, bare, files, reported: new Map([['base/seed.html', 'seedword']]), lastCompletedMs: 0 };
}

interface Operation {
  /** Makes the state the command needs; returns the command's arguments. */
  prepare(world: World, n: number): Promise<{ args: string[]; note?: string; context?: any }>;
  /** Checks the state a kill left and finishes the work by running the command again; returns problems. */
  check(world: World, n: number, killed: CliRun, prepared: { args: string[]; context?: any }, before: Before): Promise<string[]>;
}

interface Before {
  tree: string;
  remoteTip: string;
}

/** Runs the command again, to the end. */
async function rerun(world: World, args: string[]): Promise<CliRun> {
  const run = await runCli(world.a, args);
  world.lastCompletedMs = run.ms;
  return run;
}

const ok = (run: CliRun) => run.exitCode === 0 && run.json?.success === true;
const describe = (run: CliRun) => `exit ${run.exitCode ?? run.signal}: ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 300)}`;

/** The branch after a kill holds the old tree or the tree the finished command leaves: nothing in between. */
async function oldOrNew(
  world: World,
  args: string[],
  before: Before,
  killedTree: string,
  problems: string[],
  label: string,
): Promise<CliRun> {
  const again = await rerun(world, args);
  if (!ok(again)) problems.push(`${label}: the command run again after the kill failed: ${describe(again)}`);
  const final = await treeOf(world.a, MAIN);
  if (killedTree !== before.tree && killedTree !== final) {
    problems.push(`${label}: partial state after the kill: tree ${killedTree} is neither the old ${before.tree} nor the new ${final}`);
  }
  return again;
}

const OPERATIONS: Record<KillOperation, Operation> = {
  curate: {
    async prepare(world, n) {
      const file = path.join(world.files, `curate-${n}.html`);
      await writeFile(file, topicHtml(`kill/c${n}`, `curateword${n}`));
      return { args: ['curate', '--html-file', file, '--overwrite', '--format', 'json'] };
    },
    async check(world, n, killed, prepared, before) {
      const problems: string[] = [];
      const again = await oldOrNew(world, prepared.args, before, await treeOf(world.a, MAIN), problems, `curate #${n}`);
      if (ok(killed) || ok(again)) world.reported.set(`kill/c${n}.html`, `curateword${n}`);
      return problems;
    },
  },
  import: {
    async prepare(world, n) {
      const dir = path.join(world.files, `import-${n}`, `imp${n}`);
      await mkdir(dir, { recursive: true });
      for (let j = 0; j < 4; j++) await writeFile(path.join(dir, `t${j}.html`), topicHtml(`imp${n}/t${j}`, `importword${n}x${j}`));
      return { args: ['import', path.dirname(dir), '--format', 'json'] };
    },
    async check(world, n, killed, prepared, before) {
      const problems: string[] = [];
      const again = await oldOrNew(world, prepared.args, before, await treeOf(world.a, MAIN), problems, `import #${n}`);
      if (ok(killed) || ok(again)) for (let j = 0; j < 4; j++) world.reported.set(`imp${n}/t${j}.html`, `importword${n}x${j}`);
      return problems;
    },
  },
  merge: {
    async prepare(world, n) {
      // A feature branch and main each gain a topic, so the merge writes a real two-parent commit.
      await plumbCommit(
        world.a,
        `refs/brv/heads/km${n}`,
        { [`km${n}/feature.html`]: topicHtml(`km${n}/feature`, `featureword${n}`) },
        MAIN,
      );
      await plumbCommit(world.a, MAIN, { [`km${n}/main.html`]: topicHtml(`km${n}/main`, `mainword${n}`) });
      return { args: ['vc', 'merge', `km${n}`, '--format', 'json'] };
    },
    async check(world, n, killed, prepared, before) {
      const problems: string[] = [];
      await oldOrNew(world, prepared.args, before, await treeOf(world.a, MAIN), problems, `merge #${n}`);
      world.reported.set(`km${n}/feature.html`, `featureword${n}`);
      world.reported.set(`km${n}/main.html`, `mainword${n}`);
      return problems;
    },
  },
  push: {
    async prepare(world, n) {
      await plumbCommit(world.a, MAIN, { [`kp/p${n}.html`]: topicHtml(`kp/p${n}`, `pushword${n}`) });
      world.reported.set(`kp/p${n}.html`, `pushword${n}`);
      return { args: ['vc', 'push', '--format', 'json'] };
    },
    async check(world, n, _killed, prepared, before) {
      const problems: string[] = [];
      const local = await tipOf(world.a, MAIN);
      const remote = await tipOf(world.bare, MAIN);
      if (remote !== before.remoteTip && remote !== local)
        problems.push(`push #${n}: the remote moved to ${remote}, neither old nor the pushed tip`);
      problems.push(...(await repositoryProblems(world.bare, `push #${n} (remote)`)));
      const again = await rerun(world, prepared.args);
      if (!ok(again)) problems.push(`push #${n}: push run again after the kill failed: ${describe(again)}`);
      if ((await tipOf(world.bare, MAIN)) !== local)
        problems.push(`push #${n}: the remote does not have the pushed tip after the second push`);
      return problems;
    },
  },
  sync: {
    async prepare(world, n) {
      // A teammate pushed one topic; this clone curated another: sync fetches, merges and pushes.
      await plumbCommit(world.bare, MAIN, { [`ks/remote${n}.html`]: topicHtml(`ks/remote${n}`, `remoteword${n}`) });
      await plumbCommit(world.a, MAIN, { [`ks/local${n}.html`]: topicHtml(`ks/local${n}`, `localword${n}`) });
      world.reported.set(`ks/local${n}.html`, `localword${n}`);
      return { args: ['sync', '--format', 'json'], context: { remoteBefore: await tipOf(world.bare, MAIN) } };
    },
    async check(world, n, _killed, prepared, before) {
      const problems: string[] = [];
      const killedTree = await treeOf(world.a, MAIN);
      const killedRemote = await tipOf(world.bare, MAIN);
      const killedLocal = await tipOf(world.a, MAIN);
      if (killedRemote !== prepared.context.remoteBefore && killedRemote !== killedLocal) {
        problems.push(`sync #${n}: the remote moved to ${killedRemote}, neither old nor the local tip`);
      }
      problems.push(...(await repositoryProblems(world.bare, `sync #${n} (remote)`)));
      await oldOrNew(world, prepared.args, before, killedTree, problems, `sync #${n}`);
      if ((await tipOf(world.bare, MAIN)) !== (await tipOf(world.a, MAIN)))
        problems.push(`sync #${n}: local and remote differ after the second sync`);
      world.reported.set(`ks/remote${n}.html`, `remoteword${n}`);
      return problems;
    },
  },
  reject: {
    async prepare(world, n) {
      const file = path.join(world.files, `risky-${n}.html`);
      await writeFile(file, topicHtml(`kr/risky${n}`, `riskyword${n}`));
      const curate = await runCli(world.a, ['curate', '--html-file', file, '--meta', '{"impact":"high"}', '--format', 'json']);
      const id = curate.json?.data?.review?.id as string | undefined;
      if (!id) throw new Error(`the high-impact curate opened no review: ${describe(curate)}`);
      return { args: ['review', 'reject', id, '--format', 'json'], context: { id } };
    },
    async check(world, n, _killed, prepared, before) {
      const problems: string[] = [];
      const reviewRef = `refs/brv/review/${prepared.context.id}`;
      const open = (await tipOf(world.a, reviewRef)) !== '';
      const tree = await treeOf(world.a, MAIN);
      // The decision commit and closing the review are one ref transaction: both or neither.
      if (open && tree !== before.tree) problems.push(`reject #${n}: the branch moved but the review is still open`);
      if (!open && tree === before.tree) problems.push(`reject #${n}: the review was closed but the topic not reverted`);
      const again = await rerun(world, open ? prepared.args : ['review', 'pending', '--format', 'json']);
      if (!ok(again)) problems.push(`reject #${n}: the next command after the kill failed: ${describe(again)}`);
      if ((await tipOf(world.a, reviewRef)) !== '') problems.push(`reject #${n}: the review is still open after reject`);
      const listed = await git(world.a, 'ls-tree', '-r', '--name-only', MAIN);
      if (listed.split('\n').includes(`kr/risky${n}.html`)) problems.push(`reject #${n}: the rejected topic is still on the branch`);
      return problems;
    },
  },
  index: {
    async prepare(world) {
      // The first index build: no index and no per-blob cache yet.
      const common = path.join(world.a, '.git', 'brv');
      await rm(path.join(common, 'index'), { recursive: true, force: true });
      await rm(path.join(common, 'cache'), { recursive: true, force: true });
      return { args: ['query', 'seedword', '--format', 'json'] };
    },
    async check(world, n, _killed, prepared) {
      const problems: string[] = [];
      const again = await rerun(world, prepared.args);
      if (!ok(again)) problems.push(`index #${n}: the query after the kill failed: ${describe(again)}`);
      else if (!again.stdout.includes('base/seed'))
        problems.push(`index #${n}: the query after the kill does not find base/seed: ${again.stdout.slice(0, 300)}`);
      return problems;
    },
  },
};

async function lostTopics(world: World): Promise<string[]> {
  const lost: string[] = [];
  for (const [file, word] of world.reported) {
    const shown = await execa('git', ['show', `${MAIN}:${file}`], { cwd: world.a, env: ENV, extendEnv: false, reject: false });
    if (shown.exitCode !== 0 || !shown.stdout.includes(word)) lost.push(file);
  }
  return lost;
}

/**
 * Runs `runs` kills, operations in a seeded random order, each killed after a seeded random delay
 * between 20% and 110% of the time that operation took when it ran to the end (the first time: 400 ms).
 */
export async function killCampaign(options: {
  runs: number;
  seed: number;
  operations?: readonly KillOperation[];
  log?: (line: string) => void;
}): Promise<KillReport> {
  const start = performance.now();
  const random = seededRandom(options.seed);
  const operations = options.operations ?? KILL_OPERATIONS;
  const durations = new Map<KillOperation, number[]>();
  const report: KillReport = { runs: 0, seed: options.seed, killed: 0, byOperation: {}, problems: [], seconds: 0 };
  const world = await makeWorld();
  try {
    for (let n = 0; n < options.runs; n++) {
      // Every operation in turn, in a shuffled order per round, so a short run still covers them all.
      const roundStart = n - (n % operations.length);
      const order = shuffled(operations, seededRandom(options.seed + roundStart));
      const name = order[n % operations.length]!;
      const operation = OPERATIONS[name];
      const prepared = await operation.prepare(world, n);
      const before: Before = { tree: await treeOf(world.a, MAIN), remoteTip: await tipOf(world.bare, MAIN) };
      const seen = durations.get(name) ?? [];
      const typical = seen.length > 0 ? seen.reduce((x, y) => x + y, 0) / seen.length : 400;
      // Mostly after Node has started (~100 ms of every run loads code and touches nothing), up to just past the end.
      const delay = Math.round(typical * (0.2 + 0.9 * random()));
      const killed = await runCli(world.a, prepared.args, { killAfterMs: delay });
      const wasKilled = killed.signal === 'SIGKILL';
      if (!wasKilled) seen.push(killed.ms);
      durations.set(name, seen);
      const label = `${name} #${n} (killed after ${delay} ms${wasKilled ? '' : ', had already finished'})`;
      const problems = [
        ...(await repositoryProblems(world.a, label)),
        ...(await operation.check(world, n, killed, prepared, before)).map((p) => `${p} [${label}]`),
      ];
      if (wasKilled && world.lastCompletedMs > 0) seen.push(world.lastCompletedMs);
      world.lastCompletedMs = 0;
      for (const file of await lostTopics(world)) problems.push(`lost ${file} after ${label}`);
      report.runs++;
      if (wasKilled) report.killed++;
      const stats = (report.byOperation[name] ??= { runs: 0, killed: 0, meanMs: 0 });
      stats.runs++;
      if (wasKilled) stats.killed++;
      stats.meanMs = Math.round(typical);
      report.problems.push(...problems);
      options.log?.(`${label}: ${problems.length === 0 ? 'ok' : problems.join('; ')}`);
    }
    const final = await runCli(world.a, ['status', '--format', 'json']);
    if (!ok(final)) report.problems.push(`status after the campaign failed: ${describe(final)}`);
    report.problems.push(...(await repositoryProblems(world.a, 'end')), ...(await repositoryProblems(world.bare, 'end (remote)')));
  } finally {
    await cleanup(world.root, world.files);
  }
  report.seconds = Math.round((performance.now() - start) / 100) / 10;
  return report;
}

function shuffled<T>(items: readonly T[], random: () => number): T[] {
  const copy = [...items];
  for (let i = copy.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [copy[i], copy[j]] = [copy[j]!, copy[i]!];
  }
  return copy;
}
