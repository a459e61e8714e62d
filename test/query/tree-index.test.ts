import test from 'ava';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { TreeIndexStore } from '../../src/index/tree-index.js';
import { internals, openBrv } from '../helpers/service.js';
import { put } from '../helpers/knowledge.js';
import { makeRepo } from '../helpers/repo.js';

test('a store keeps the indexes it opened warm, and reloads one whose files were pruned', async (t) => {
  const dir = await makeRepo();
  await put(dir, 'a/one', '<bv-rule id="r1">Warm indexes.</bv-rule>');
  const brv = await openBrv(dir);
  t.teardown(() => brv.close());
  const tree = (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
  const root = path.join(internals(brv).repo.location.commonDir, 'brv', 'index');
  const store = new TreeIndexStore(internals(brv).repo, root);
  const first = await store.open(tree);
  t.not(first.build, 'cached');
  const again = await store.open(tree);
  t.is(again.build, 'cached');
  t.is(again.stack, first.stack, 'the same opened index, not read again');
  await rm(root, { recursive: true });
  const rebuilt = await store.open(tree);
  t.not(rebuilt.build, 'cached');
  t.not(rebuilt.stack, first.stack);
});

test('compactTree: off the query path; a reader of the replaced stack still finds its files (pruning waits)', async (t) => {
  const dir = await makeRepo();
  const brv = await openBrv(dir);
  t.teardown(() => brv.close());
  const curate = async (name: string, text: string) => {
    const result = await brv.knowledge.curateHtml(
      { html: `<bv-topic path="notes/${name}" title="${name}"><bv-rule id="r1">${text}</bv-rule></bv-topic>`, overwrite: false },
      { agent: 'test' },
    );
    if (!result.ok) throw new Error(JSON.stringify(result));
    return (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
  };
  const root = path.join(internals(brv).repo.location.commonDir, 'brv', 'index');
  const reader = new TreeIndexStore(internals(brv).repo, root);
  for (let i = 0; i < 9; i++) await curate(`base${i}`, `Base note ${i} about deploys.`);
  t.is((await reader.open(await curate('base9', 'Base note 9 about deploys.'))).build, 'full');
  t.is((await reader.open(await curate('delta1', 'First delta about deploys.'))).compaction, 'none');
  const tree = await curate('delta2', 'Second delta about deploys and rollbacks.');
  const index = await reader.open(tree);
  t.is(index.build, 'incremental');
  t.is(index.compaction, 'due', 'two delta topics are over 10% of ten');
  t.is(index.stack.segments.length, 3);

  // Another process compacts while the reader holds the old stack, not yet having read its texts.
  const other = new TreeIndexStore(internals(brv).repo, root);
  const outcome = await other.compactTree(tree);
  t.like(outcome, { tree, compacted: true, segmentsBefore: 3, segmentsAfter: 1 });
  // More trees are indexed: the manifests that named the replaced segments are pruned (12 are kept).
  for (let i = 0; i < 13; i++) await other.open(await curate(`later${i}`, `Later note ${i}.`));
  const [text] = await reader.rendered(index, [{ segment: 2, doc: 0 }]);
  t.regex(text!.markdown, /Second delta about deploys and rollbacks/, 'the retired docstore is still there');
});

test('compactTree publishes the compacted stack for every store; the compacting one serves it warm', async (t) => {
  const dir = await makeRepo();
  const brv = await openBrv(dir);
  t.teardown(() => brv.close());
  const tree = async () => (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
  const root = path.join(internals(brv).repo.location.commonDir, 'brv', 'index');
  const store = new TreeIndexStore(internals(brv).repo, root);
  for (let i = 0; i < 12; i++) {
    const html = `<bv-topic path="notes/n${i}" title="n${i}"><bv-rule id="r1">Note ${i} about deploys.</bv-rule></bv-topic>`;
    await brv.knowledge.curateHtml({ html, overwrite: false }, { agent: 'test' });
    if (i === 9 || i === 11) await store.open(await tree());
  }
  const due = await store.open(await tree());
  t.is(due.compaction, 'due');
  t.like(await store.compactTree(await tree()), { compacted: true, segmentsBefore: 2, segmentsAfter: 1 });
  t.is((await store.open(await tree())).stack.segments.length, 1, 'warm');
  const fresh = await new TreeIndexStore(internals(brv).repo, root).open(await tree());
  t.is(fresh.build, 'cached');
  t.is(fresh.stack.segments.length, 1);
  t.is(fresh.compaction, 'none');
  t.is(fresh.hashedSegments, 0, 'the compaction checked and stamped the new segment, the next query does not hash it');
  t.like(await store.compactTree(await tree()), { compacted: false, segmentsBefore: 1 });
});
