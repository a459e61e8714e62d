import test from 'ava';
import { brvRefs, put, rule, sharedClones, succeeded } from '../helpers/knowledge.js';
import { brvJson, cleanup, git, refTip } from '../helpers/repo.js';

// Before: git fetch itself moved refs/brv/remotes/origin/heads/main with a compare-and-swap, so a
// concurrent brv in the same clone made it fail with "cannot lock ref" (8 of 32 syncs).

test('four concurrent brv sync in one clone, repeated: all succeed, nothing is lost', async (t) => {
  const { root, a, b, bare } = await sharedClones();
  t.teardown(() => cleanup(root));
  // Left behind by a brv that was killed mid-fetch: cleaned up by the next fetch.
  await git(a, 'update-ref', 'refs/brv/incoming/2147483646-dead/0/main', (await refTip(a))!);
  const rounds = 3;
  for (let i = 0; i < rounds; i++) {
    await put(b, `beta/t${i}`, rule(`beta ${i}`));
    succeeded(await brvJson(b, ['sync']));
    await put(a, `alpha/t${i}`, rule(`alpha ${i}`));
    const runs = await Promise.all(Array.from({ length: 4 }, () => brvJson(a, ['sync'], { process: true })));
    for (const run of runs) t.true(run.json?.success, `round ${i}: ${run.stdout} ${run.stderr}`);
  }
  succeeded(await brvJson(b, ['sync']));
  const topics = succeeded(await brvJson(a, ['ls'])).topics as string[];
  for (let i = 0; i < rounds; i++) t.true(topics.includes(`alpha/t${i}`) && topics.includes(`beta/t${i}`), `round ${i}`);
  t.is(await refTip(a), await refTip(bare));
  t.is(await refTip(b), await refTip(bare));
  t.false((await brvRefs(a)).some((r) => r.includes('refs/brv/incoming/')));
  await git(a, 'fsck', '--strict');
});
