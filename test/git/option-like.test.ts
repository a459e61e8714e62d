import test from 'ava';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { BrvError } from '../../src/base/errors.js';
import { addRemote, cloneRepository, fetchRefspecs, pushRefspecs, removeRemote, setRemoteUrl } from '../../src/git/remote.js';
import { GitRepository } from '../../src/git/repository.js';
import { addWorktree } from '../../src/git/worktree.js';
import { addSource } from '../../src/vc/sources.js';
import { ContextStore } from '../../src/store/context-store.js';
import { cleanup, git, makeRepo, tempDir } from '../helpers/repo.js';
import { testProcesses } from '../helpers/processes.js';

// Option-like values reach the library from agents (through MCP or a front end that lets them
// through): every git call that takes one separates it with `--` or refuses it first.
test('option-like remote names, URLs, branches, revisions and config keys never reach git as options', async (t) => {
  const repo = await makeRepo();
  const scratch = await tempDir('brv-optlike-');
  t.teardown(() => cleanup(repo, scratch));
  const marker = path.join(scratch, 'pwned');
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const store = new ContextStore(g, async () => ({ enabled: true, gate: false }));
  await git(repo, 'remote', 'add', 'origin', scratch);
  const option = `--upload-pack=touch ${marker}`;
  const kindOf = async (promise: Promise<unknown>) => ((await t.throwsAsync(promise)) as BrvError).kind;

  t.is(await kindOf(addRemote(g, '-x', scratch)), 'invalid-remote-name');
  t.is(await kindOf(addRemote(g, 'x', option)), 'invalid-url');
  t.is(await kindOf(setRemoteUrl(g, 'origin', option)), 'invalid-url');
  t.is(await kindOf(removeRemote(g, '--all')), 'no-remote');
  t.is(await kindOf(cloneRepository(option, path.join(scratch, 'c'), scratch, testProcesses())), 'invalid-url');
  t.is(await kindOf(addSource(g, option, { cwd: repo, alias: 'x' })), 'invalid-url');
  // A remote argument that looks like an option is a (missing) remote for git, after `--`.
  t.true(
    ['remote-unreachable', 'remote-not-found', 'git-failed'].includes(
      await kindOf(fetchRefspecs(g, option, ['+refs/brv/heads/*:refs/x/*'])),
    ),
  );
  t.true(
    ['remote-unreachable', 'remote-not-found', 'git-failed'].includes(
      await kindOf(pushRefspecs(g, option, ['refs/heads/main:refs/heads/main'])),
    ),
  );
  t.is(await kindOf(store.createBranch('-x', '0'.repeat(40))), 'invalid-branch-name');
  t.is(await kindOf(store.resolveCommit('main', '--all')), 'invalid-revision');
  t.is(await kindOf(addWorktree(g, path.join(scratch, 'w'), { gitBranch: '--detach' })), 'invalid-revision');
  t.is(await kindOf(addWorktree(g, path.join(scratch, 'w'), { commitish: '--orphan' })), 'invalid-revision');
  t.is(await kindOf(g.configSet('--global', 'x')), 'invalid-config-key');
  t.is(await kindOf(g.configGet('--list')), 'invalid-config-key');
  // A value that looks like an option is stored as a value.
  await g.configSet('brv.test', '--help');
  t.is(await g.configGet('brv.test'), '--help');
  t.false(existsSync(marker));
  t.false(existsSync(path.join(scratch, 'w')));
  t.is((await git(repo, 'remote')).trim(), 'origin');
});
