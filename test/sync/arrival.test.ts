import test from 'ava';
import { GitRepository } from '../../src/git/repository.js';
import { ContextStore } from '../../src/store/context-store.js';
import { importFetched } from '../../src/vc/arrival.js';
import { mergeIntoBranch } from '../../src/vc/merge.js';
import { cleanup, git, makeRepo, refTip } from '../helpers/repo.js';
import { plantTree } from '../helpers/plant.js';
import { testProcesses } from '../helpers/processes.js';

// The read-time import never merges (src/vc/arrival.ts): mergeIntoBranch's fastForwardOnly stops
// at diverged histories — also when they came to diverge while it ran — and the import reports them.

const topic = (p: string, text: string) => `<bv-topic path="${p}" title="About ${p}"><bv-rule id="r1">${text}</bv-rule></bv-topic>`;
const TRACKING = 'refs/brv/remotes/origin/heads/main';

test('fast-forward only: diverged histories stop with status diverged and the branch does not move; behind, it fast-forwards', async (t) => {
  const repo = await makeRepo({ commit: false });
  t.teardown(() => cleanup(repo));
  await git(repo, 'remote', 'add', 'origin', '/nonexistent/remote.git'); // never contacted
  const base = await plantTree(repo, { 'k/one.html': topic('k/one', 'One.') });
  await git(repo, 'update-ref', TRACKING, base);
  const theirs = await plantTree(repo, { 'k/one.html': topic('k/one', 'One.'), 'k/two.html': topic('k/two', 'Two.') }, { ref: TRACKING });
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const store = new ContextStore(g, async () => ({ enabled: true, gate: false }));

  // Behind: the import fast-forwards.
  t.like(await importFetched(store, 'main'), { state: 'fast-forwarded', remote: 'origin', from: base, to: theirs });
  t.is(await refTip(repo), theirs);

  // Diverged: a local write on top of the old base, then the remote moves on too.
  await git(repo, 'update-ref', 'refs/brv/heads/main', base);
  const local = await plantTree(repo, { 'k/one.html': topic('k/one', 'One.'), 'k/three.html': topic('k/three', 'Three.') });
  const merge = await mergeIntoBranch(store, 'main', theirs, { subject: 'merge', theirsLabel: 'origin/main', fastForwardOnly: true });
  t.is(merge.status, 'diverged');
  t.is(merge.commit, local);
  t.is(await refTip(repo), local, 'no merge commit');
  t.like(await importFetched(store, 'main'), { state: 'diverged', remote: 'origin', ahead: 1, behind: 1, fix: 'brv sync' });
  t.is(await refTip(repo), local);
  // Remembered: the same answer again, and still nothing moved.
  t.like(await importFetched(store, 'main'), { state: 'diverged', ahead: 1, behind: 1 });
  t.is(await refTip(repo), local);
  t.is((await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')).trim(), '2');
});
