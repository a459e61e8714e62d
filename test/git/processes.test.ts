import test from 'ava';
import { alive, waitFor } from '../helpers/wait.js';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { GitProcesses } from '../../src/git/processes.js';
import { GitRepository } from '../../src/git/repository.js';
import { runGit, spawnFailure } from '../../src/git/run.js';
import { git, makeRepo, tempDir } from '../helpers/repo.js';

/** A git that starts a shell (its descendant) which records its pid in `pidFile` and sleeps. */
function hangingGit(processes: GitProcesses, cwd: string, pidFile: string): Promise<unknown> {
  const run = runGit(processes, ['-c', `alias.hang=!echo $$ > '${pidFile}'; exec sleep 30`, 'hang'], { cwd });
  run.catch(() => {});
  return run;
}

async function pidIn(file: string): Promise<number> {
  if (!(await waitFor(() => existsSync(file) && readFileSync(file, 'utf8').trim() !== '', 8000))) throw new Error(`${file} never written`);
  return Number(readFileSync(file, 'utf8').trim());
}

test('two GitProcesses are independent: terminating one stops its git and descendants, not the other’s', async (t) => {
  if (process.platform !== 'linux') return t.pass('descendants are read from /proc here');
  const repo = await makeRepo();
  const scratch = await tempDir('brv-processes-');
  const a = new GitProcesses(process.env);
  const b = new GitProcesses(process.env);
  t.teardown(() => {
    a.terminate('SIGKILL');
    b.terminate('SIGKILL');
  });
  const runA = hangingGit(a, repo, path.join(scratch, 'a.pid'));
  const runB = hangingGit(b, repo, path.join(scratch, 'b.pid'));
  const [shellA, shellB] = await Promise.all([pidIn(path.join(scratch, 'a.pid')), pidIn(path.join(scratch, 'b.pid'))]);

  // git and the shell it started (its descendant): both signalled, deepest first.
  t.true(a.terminate() >= 2);
  await t.throwsAsync(runA);
  t.true(await waitFor(() => !alive(shellA), 2000), "a's descendant is gone");
  t.true(alive(shellB), "b's descendant still runs");
  t.is(a.terminate(), 0, 'nothing of a is left to stop');

  t.true(b.terminate() >= 2);
  await t.throwsAsync(runB);
  t.true(await waitFor(() => !alive(shellB), 2000));
});

test('a batch process belongs to the GitProcesses its repository was opened with', async (t) => {
  const repo = await makeRepo();
  const a = new GitProcesses(process.env);
  const b = new GitProcesses(process.env);
  const ga = await GitRepository.open(repo, a);
  const gb = await GitRepository.open(repo, b);
  t.teardown(() => {
    ga.close();
    gb.close();
  });
  t.is(ga.processes, a);
  const head = await git(repo, 'rev-parse', 'HEAD');
  t.is((await ga.readObject('HEAD'))?.oid, head);
  t.is((await gb.readObject('HEAD'))?.oid, head);
  t.is(a.terminate(), 1, "a's cat-file --batch");
  const failed = await t.throwsAsync(async () => {
    // The reader may not have seen its exit yet: ask until it has.
    for (let i = 0; i < 100; i++) {
      await ga.readObject('HEAD');
      await sleep(20);
    }
  });
  t.is((failed as { kind?: string }).kind, 'git-failed');
  t.is((await gb.readObject('HEAD'))?.oid, head, "b's reader still answers");
  gb.close();
  t.is(b.terminate(), 0, 'a closed batch process is no longer stopped at exit');
});

test('git children get the base environment they were given, cleaned (GIT_DIR and friends stripped), not process.env', async (t) => {
  const repo = await makeRepo();
  const other = await makeRepo();
  const base = {
    ...process.env,
    GIT_AUTHOR_NAME: 'Base Environment',
    GIT_DIR: path.join(other, '.git'),
    GIT_INDEX_FILE: path.join(other, '.git', 'index'),
  };
  const processes = new GitProcesses(base);
  t.is(processes.environment().GIT_DIR, undefined);
  t.is(processes.environment().GIT_INDEX_FILE, undefined);
  t.is(processes.environment({ EXTRA: '1' }).EXTRA, '1');
  t.is(processes.environment().EXTRA, undefined, 'extra variables are per call');

  const ident = await runGit(processes, ['var', 'GIT_AUTHOR_IDENT'], { cwd: repo });
  t.regex(ident.stdout, /^Base Environment </);
  const plain = await runGit(new GitProcesses(process.env), ['var', 'GIT_AUTHOR_IDENT'], { cwd: repo });
  t.notRegex(plain.stdout, /^Base Environment </, 'another GitProcesses does not see it');

  // GIT_DIR from the base would point discovery at the other repository.
  const g = await GitRepository.open(repo, processes);
  t.teardown(() => g.close());
  t.is(g.location.gitDir, path.join(repo, '.git'));
  const gitDir = await runGit(processes, ['rev-parse', '--absolute-git-dir'], { cwd: repo });
  t.is(gitDir.stdout.trim(), path.join(repo, '.git'));
});

test('a git that cannot start is a typed error that says what to do: no descriptors, no process, no memory, no git', (t) => {
  const kinds = Object.fromEntries(
    ['EMFILE', 'ENFILE', 'EAGAIN', 'ENOMEM', 'ENOENT', 'EACCES'].map((code) => {
      const error = spawnFailure(Object.assign(new Error(`spawn git ${code}`), { code }));
      return [code, `${error.kind}: ${error.message}`];
    }),
  );
  t.regex(kinds.EMFILE!, /^too-many-open-files: .*ulimit -n/);
  t.regex(kinds.ENFILE!, /^too-many-open-files: .*system's open-file limit/);
  t.regex(kinds.EAGAIN!, /^cannot-start-process: .*process limit, ulimit -u/);
  t.regex(kinds.ENOMEM!, /^cannot-start-process: .*out of memory/);
  t.regex(kinds.ENOENT!, /^git-not-found: /);
  t.regex(kinds.EACCES!, /^git-failed: Could not run git/);
});
