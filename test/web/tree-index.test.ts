// The server's folder index: built once per commit (and source), shared by concurrent requests, the last few kept.
import test from 'ava';
import type { Brv } from '../../src/service/brv.js';
import { FolderIndexes } from '../../src/web/tree-routes.js';

/** A Brv stand-in whose catalog is slow and counted, at the commit `tip.commit`. */
function fakeBrv(tip: { commit: string }, topics: Array<{ path: string; title: string }>) {
  const calls: string[] = [];
  const brv = {
    branch: 'main',
    retrieval: {
      catalogTip: async ({ source }: { source?: string }) => ({ commit: `${source ?? ''}${tip.commit}` }),
      catalog: async ({ source }: { source?: string }) => {
        calls.push(`${source ?? 'local'}@${tip.commit}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
        return { commit: `${source ?? ''}${tip.commit}`, topics };
      },
    },
  };
  return { brv: brv as unknown as Brv, calls };
}

test('concurrent requests build one index per commit; a new commit builds again; the last four are kept', async (t) => {
  const tip = { commit: 'c1' };
  const { brv, calls } = fakeBrv(tip, [
    { path: 'a/b/c', title: 'C' },
    { path: 'a/d', title: 'D' },
    { path: 'e', title: 'E' },
  ]);
  const indexes = new FolderIndexes();
  const built = await Promise.all(Array.from({ length: 50 }, () => indexes.get(brv, undefined)));
  t.deepEqual(calls, ['local@c1']);
  t.true(built.every((index) => index === built[0]));
  t.is(built[0]!.folders.get('')!.count, 3);
  t.deepEqual(built[0]!.folders.get('a')!.folders, ['b']);
  t.is(built[0]!.folders.get('a/b')!.count, 1);

  tip.commit = 'c2';
  await indexes.get(brv, undefined);
  await indexes.get(brv, 'team');
  t.deepEqual(calls, ['local@c1', 'local@c2', 'team@c2']);
  // c1 is still kept (four at most): asked again, it is not rebuilt.
  tip.commit = 'c1';
  await indexes.get(brv, undefined);
  t.is(calls.length, 3);
  for (const commit of ['c3', 'c4', 'c5', 'c6']) {
    tip.commit = commit;
    await indexes.get(brv, undefined);
  }
  tip.commit = 'c1';
  await indexes.get(brv, undefined);
  t.is(calls.at(-1), 'local@c1', 'evicted after four newer ones: built again');
});

test('a failed build is not kept: the next request tries again', async (t) => {
  let fail = true;
  const brv = {
    branch: 'main',
    retrieval: {
      catalogTip: async () => ({ commit: 'c1' }),
      catalog: async () => {
        if (fail) throw new Error('boom');
        return { commit: 'c1', topics: [{ path: 'x', title: '' }] };
      },
    },
  } as unknown as Brv;
  const indexes = new FolderIndexes();
  await t.throwsAsync(indexes.get(brv, undefined), { message: 'boom' });
  fail = false;
  t.is((await indexes.get(brv, undefined)).folders.get('')!.count, 1);
});

test('the branch moving between the tip read and the catalog read: the index is of the commit it is kept under', async (t) => {
  // A burst of moves: the tip is c1 when the request reads it, c2 a moment later when a catalog of "the tip" is read.
  const at: Array<string | undefined> = [];
  const catalogOf = (commit: string) => ({ commit, topics: [{ path: `burst/${commit}`, title: commit }] });
  const brv = {
    branch: 'main',
    retrieval: {
      catalogTip: async () => ({ commit: 'c1' }),
      catalog: async (request: { at?: string }) => {
        at.push(request.at);
        return catalogOf(request.at ?? 'c2');
      },
    },
  } as unknown as Brv;
  const indexes = new FolderIndexes();
  const index = await indexes.get(brv, undefined);
  t.is(index.commit, 'c1');
  t.deepEqual(index.folders.get('burst')?.topics, [{ name: 'c1', title: 'c1' }]);
  t.deepEqual(at, ['c1']);

  // A source is read only at its tip: an index of another tip answers once and is not kept under this one.
  let sourceTip = 'c2';
  const source = {
    branch: 'main',
    retrieval: {
      catalogTip: async () => ({ commit: 'c1' }),
      catalog: async () => catalogOf(sourceTip),
    },
  } as unknown as Brv;
  t.is((await indexes.get(source, 'platform')).commit, 'c2');
  sourceTip = 'c1';
  t.is((await indexes.get(source, 'platform')).commit, 'c1', 'built again, not the c2 index kept under c1');
});

test('a folder lists its topics by the title the tree shows (numbers in order, case aside; no title: the name)', async (t) => {
  const { brv } = fakeBrv({ commit: 'c1' }, [
    { path: 'n/a-zed', title: 'Zed' },
    { path: 'n/b-note10', title: 'Note 10' },
    { path: 'n/c-note2', title: 'note 2' },
    { path: 'n/d-untitled', title: '' },
    { path: 'n/e-alpha', title: 'Alpha' },
  ]);
  const index = await new FolderIndexes().get(brv, undefined);
  t.deepEqual(
    index.folders.get('n')!.topics.map((topic) => topic.name),
    ['e-alpha', 'd-untitled', 'c-note2', 'b-note10', 'a-zed'],
  );
});
