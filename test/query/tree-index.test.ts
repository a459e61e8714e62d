import test from 'ava';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { TreeIndexStore } from '../../src/query/tree-index.js';
import { Brv } from '../../src/service/brv.js';
import { put } from '../helpers/knowledge.js';
import { makeRepo } from '../helpers/repo.js';
import { testProcesses } from '../helpers/processes.js';

test('a store keeps the indexes it opened warm, and reloads one whose files were pruned', async (t) => {
  const dir = await makeRepo();
  await put(dir, 'a/one', '<bv-rule id="r1">Warm indexes.</bv-rule>');
  const brv = await Brv.open(dir, { processes: testProcesses() });
  t.teardown(() => brv.close());
  const tree = (await brv.store.snapshot(brv.branch)).commit!.tree;
  const root = path.join(brv.repo.location.commonDir, 'brv', 'index');
  const store = new TreeIndexStore(brv.repo, root);
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
