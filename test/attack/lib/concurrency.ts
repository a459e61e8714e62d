/**
 * Campaign 4, concurrency: many brv processes writing one repository at once (curates of different
 * topics and of one topic, through sessions and one-shot), with merges and review rejects racing them.
 * Every command that reported success must be in the final history (its commit an ancestor of the
 * tip, its topic present unless a later write replaced it), fsck clean, no stale lock. Shared by
 * test/process/concurrent-writers.test.ts and bench/attack/concurrency.ts.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { execa } from 'execa';
import { ENV, brvJson, cleanup, git, makeRepo, reply } from '../../helpers/repo.js';
import { plumbCommit, repositoryProblems, runCli, tipOf, topicHtml, type CliRun } from './processes.js';

const MAIN = 'refs/brv/heads/main';

export interface ConcurrencyReport {
  curates: number;
  merges: number;
  rejects: number;
  succeeded: number;
  /** Same-topic writers told the topic already exists (expected: they did not pass --overwrite). */
  pathExists: number;
  /** Every finding, one line each; empty when nothing was lost or broken. */
  problems: string[];
  wallMs: number;
}

const ok = (run: CliRun) => run.exitCode === 0 && run.json?.success === true;
const describe = (run: CliRun) => `exit ${run.exitCode ?? run.signal}: ${run.stdout.slice(0, 300)} ${run.stderr.slice(0, 200)}`;

async function isAncestor(repo: string, commit: string, tip: string): Promise<boolean> {
  const result = await execa('git', ['merge-base', '--is-ancestor', commit, tip], { cwd: repo, env: ENV, extendEnv: false, reject: false });
  return result.exitCode === 0;
}

/**
 * One round in a fresh repository: `curates` writers at once (a quarter through kickoff + continuation,
 * a quarter racing for one new path, a quarter overwriting one existing topic, the rest one-shot on
 * their own paths), plus `merges` merges of prepared branches and `rejects` rejects of open reviews.
 */
export async function concurrencyRound(options: {
  curates: number;
  merges: number;
  rejects: number;
  round?: number;
}): Promise<ConcurrencyReport> {
  const repo = await makeRepo();
  const files = path.join(repo, '.git', 'attack-files');
  await mkdir(files);
  const problems: string[] = [];
  const r = options.round ?? 0;
  try {
    const init = await brvJson(repo, ['init']);
    if (!init.json?.success) throw new Error(`init failed: ${init.stdout}`);
    const shared = path.join(files, 'shared-base.html');
    await writeFile(shared, topicHtml('cc/overwritten', 'base version'));
    if (!ok(await runCli(repo, ['curate', '--html-file', shared, '--format', 'json']))) throw new Error('setup curate failed');

    // Reviews to reject, branches to merge: prepared before the race.
    const reviews: string[] = [];
    for (let i = 0; i < options.rejects; i++) {
      const file = path.join(files, `risky-${i}.html`);
      await writeFile(file, topicHtml(`cc/risky${i}`, `riskyword${i}`));
      const run = await runCli(repo, ['curate', '--html-file', file, '--meta', '{"impact":"high"}', '--format', 'json']);
      const id = run.json?.data?.review?.id;
      if (!id) throw new Error(`no review opened: ${describe(run)}`);
      reviews.push(id);
    }
    for (let i = 0; i < options.merges; i++) {
      await plumbCommit(repo, `refs/brv/heads/cm${i}`, { [`cm${i}/feature.html`]: topicHtml(`cm${i}/feature`, `featureword${i}`) }, MAIN);
    }

    // Kickoffs for the session writers, before the race (a kickoff writes no knowledge).
    const kinds = Array.from({ length: options.curates }, (_, i) => (['session', 'same-path', 'overwrite', 'own-path'] as const)[i % 4]);
    const sessions = await Promise.all(
      kinds.map(async (kind) =>
        kind === 'session' ? (await runCli(repo, ['curate', 'record a fact', '--format', 'json'])).json?.data.sessionId : undefined,
      ),
    );
    const commands = kinds.map((kind, i) => {
      const own = `cc/r${r}w${i}`;
      if (kind === 'session')
        return {
          kind,
          topic: own,
          word: `word${i}`,
          args: ['curate', '--session', sessions[i], '--response', reply(own, own, `<bv-rule>word${i}</bv-rule>`), '--format', 'json'],
        };
      const topicPath = kind === 'same-path' ? 'cc/raced' : kind === 'overwrite' ? 'cc/overwritten' : own;
      const file = path.join(files, `w${i}.html`);
      return {
        kind,
        topic: topicPath,
        word: `word${i}`,
        file,
        args: ['curate', '--html-file', file, ...(kind === 'overwrite' ? ['--overwrite'] : []), '--format', 'json'],
      };
    });
    await Promise.all(commands.map((c) => (c.file ? writeFile(c.file, topicHtml(c.topic, c.word)) : undefined)));

    const start = performance.now();
    const [curateRuns, mergeRuns, rejectRuns] = await Promise.all([
      Promise.all(commands.map((c) => runCli(repo, c.args))),
      Promise.all(Array.from({ length: options.merges }, (_, i) => runCli(repo, ['vc', 'merge', `cm${i}`, '--format', 'json']))),
      Promise.all(reviews.map((id) => runCli(repo, ['review', 'reject', id, '--format', 'json']))),
    ]);
    const wallMs = Math.round(performance.now() - start);

    const tip = await tipOf(repo, MAIN);
    const tree = new Map<string, string>();
    for (const line of (await git(repo, 'ls-tree', '-r', MAIN)).split('\n').filter(Boolean)) {
      const [meta, file] = line.split('\t') as [string, string];
      tree.set(file, meta.split(' ')[2]!);
    }
    const content = async (file: string) => (tree.has(file) ? await git(repo, 'cat-file', 'blob', tree.get(file)!) : undefined);
    let succeeded = 0;
    let pathExists = 0;
    const sameWinners: string[] = [];
    const overwriteWords: string[] = [];
    for (const [i, run] of curateRuns.entries()) {
      const command = commands[i]!;
      if (!ok(run)) {
        if (command.kind === 'same-path' && run.json?.data?.errors?.[0]?.kind === 'path-exists') pathExists++;
        else problems.push(`curate ${command.kind} #${i} failed: ${describe(run)}`);
        continue;
      }
      succeeded++;
      const commit = run.json!.data.commit as string | undefined;
      if (commit && !(await isAncestor(repo, commit, tip)))
        problems.push(`curate ${command.kind} #${i}: its commit ${commit} is not in the history (lost)`);
      if (command.kind === 'same-path') sameWinners.push(command.word);
      else if (command.kind === 'overwrite') overwriteWords.push(command.word);
      else if (!(await content(`${command.topic}.html`))?.includes(command.word))
        problems.push(`curate ${command.kind} #${i}: ${command.topic} lost`);
    }
    const sameWriters = kinds.filter((k) => k === 'same-path').length;
    if (sameWriters > 0 && sameWinners.length !== 1) problems.push(`${sameWinners.length} writers added cc/raced; exactly one should`);
    const raced = await content('cc/raced.html');
    if (sameWinners.length === 1 && !raced?.includes(sameWinners[0]!)) problems.push(`cc/raced does not hold the winner's version`);
    const overwritten = await content('cc/overwritten.html');
    if (overwriteWords.length > 0 && !overwriteWords.some((w) => overwritten?.includes(w)))
      problems.push('cc/overwritten holds none of the reported versions');
    for (const [i, run] of mergeRuns.entries()) {
      if (!ok(run)) problems.push(`merge cm${i} failed: ${describe(run)}`);
      else if (!(await content(`cm${i}/feature.html`))?.includes(`featureword${i}`))
        problems.push(`merge cm${i}: the merged topic is missing`);
    }
    for (const [i, run] of rejectRuns.entries()) {
      if (!ok(run)) problems.push(`reject ${reviews[i]} failed: ${describe(run)}`);
      else if (tree.has(`cc/risky${i}.html`)) problems.push(`reject ${reviews[i]}: the rejected topic is still on the branch`);
      if ((await tipOf(repo, `refs/brv/review/${reviews[i]}`)) !== '') problems.push(`reject ${reviews[i]}: the review is still open`);
    }
    problems.push(...(await repositoryProblems(repo, 'after the race')));
    return { curates: options.curates, merges: options.merges, rejects: options.rejects, succeeded, pathExists, problems, wallMs };
  } finally {
    await cleanup(repo);
  }
}
