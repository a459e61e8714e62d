import test from 'ava';
import { GitRepository } from '../../src/git/repository.js';
import { ContextStore, KNOWN_FORMAT_BLOBS } from '../../src/store/context-store.js';
import { FORMAT_VERSION } from '../../src/store/layout.js';
import { parseCommitMessage, formatCommitMessage } from '../../src/store/trailers.js';
import { git, makeRepo, tempDir } from '../helpers/repo.js';
import { execa } from 'execa';
import { testProcesses } from '../helpers/processes.js';

async function openStore(t: any) {
  const repo = await makeRepo();
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  return { dir: repo, repo: g, store: new ContextStore(g, async () => ({ enabled: true, gate: false })) };
}

function add(path: string, blob: string) {
  return { path, blob };
}

test('writing one topic into a large tree rewrites only the trees on its path', async (t) => {
  const { repo, store } = await openStore(t);
  const blobs = await repo.writeBlobs(Array.from({ length: 2000 }, (_, i) => `<bv-topic path="d${i % 40}/t${i}" title="t"></bv-topic>`));
  await store.commit('main', async () => ({
    write: { edits: blobs.map((oid, i) => add(`d${i % 40}/t${i}.html`, oid)), subject: 'bulk', meta: { op: 'import' } },
    result: null,
  }));
  const before = await store.snapshot('main');
  const rootBefore = await repo.readTree(before.commit!.tree);

  let treesWritten = 0;
  const writeTree = repo.writeTree.bind(repo);
  repo.writeTree = (entries) => {
    treesWritten++;
    return writeTree(entries);
  };
  const blob = await repo.writeBlob('<bv-topic path="d7/new" title="n"></bv-topic>');
  const outcome = await store.commit('main', async () => ({
    write: { edits: [add('d7/new.html', blob)], subject: 'one', meta: { op: 'curate' } },
    result: null,
  }));
  t.is(treesWritten, 2, 'root and d7 only');

  const after = await store.snapshot('main');
  t.is(after.commit!.oid, outcome.commit!);
  t.deepEqual((await repo.readCommit(after.commit!.oid))!.parents, [before.commit!.oid]);
  const rootAfter = await repo.readTree(after.commit!.tree);
  for (const entry of rootAfter) {
    const old = rootBefore.find((e) => e.name === entry.name)!;
    if (entry.name === 'd7') t.not(entry.oid, old.oid);
    else t.is(entry.oid, old.oid, `${entry.name} reused`);
  }
});

test('a ref that moves under a writer is re-read and the plan re-run (compare-and-swap)', async (t) => {
  const { dir, repo, store } = await openStore(t);
  const a = await repo.writeBlob('a');
  await store.commit('main', async () => ({ write: { edits: [add('x/a.html', a)], subject: 'a', meta: { op: 'curate' } }, result: null }));

  let attempts = 0;
  const b = await repo.writeBlob('b');
  const c = await repo.writeBlob('c');
  await store.commit('main', async (snapshot) => {
    attempts++;
    if (attempts === 1) {
      // Another process lands a commit between our read and our ref update.
      const other = new ContextStore(repo, async () => ({ enabled: true, gate: false }));
      await other.commit('main', async () => ({
        write: { edits: [add('x/c.html', c)], subject: 'c', meta: { op: 'curate' } },
        result: null,
      }));
    }
    return {
      write: { edits: [add('x/b.html', b)], subject: `b on ${snapshot.commit!.oid.slice(0, 7)}`, meta: { op: 'curate' } },
      result: null,
    };
  });
  t.is(attempts, 2);
  t.deepEqual((await git(dir, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main')).split('\n'), [
    '.brv/format',
    'x/a.html',
    'x/b.html',
    'x/c.html',
  ]);
  t.is(Number(await git(dir, 'rev-list', '--count', 'refs/brv/heads/main')), 3);
});

test('a plan that stops writes nothing; an edit that changes nothing makes no commit', async (t) => {
  const { repo, store } = await openStore(t);
  const a = await repo.writeBlob('a');
  const first = await store.commit('main', async () => ({
    write: { edits: [add('x/a.html', a)], subject: 'a', meta: { op: 'curate' } },
    result: 1,
  }));
  t.truthy(first.commit);
  const stopped = await store.commit('main', async () => ({ stop: 'no' }));
  t.is(stopped.result, 'no');
  t.is(stopped.commit, undefined);
  const same = await store.commit('main', async () => ({
    write: { edits: [add('x/a.html', a)], subject: 'again', meta: { op: 'curate' } },
    result: 2,
  }));
  t.is(same.commit, undefined);
  t.is((await store.snapshot('main')).commit!.oid, first.commit!);
});

test('removing the last topic of a folder removes the folder; a file cannot become a folder', async (t) => {
  const { repo, store } = await openStore(t);
  const a = await repo.writeBlob('a');
  await store.commit('main', async () => ({
    write: { edits: [add('x/y/a.html', a), add('z.html', a)], subject: 'a', meta: { op: 'curate' } },
    result: null,
  }));
  await store.commit('main', async () => ({
    write: { edits: [{ path: 'x/y/a.html', remove: true }], subject: 'rm', meta: { op: 'delete' } },
    result: null,
  }));
  t.deepEqual(await store.listFiles(await store.snapshot('main')), ['.brv/format', 'z.html']);
  const error = await t.throwsAsync(
    store.commit('main', async () => ({ write: { edits: [add('z.html/b.html', a)], subject: 'x', meta: { op: 'curate' } }, result: null })),
  );
  t.is((error as any).kind, 'path-conflict');
});

test('an unknown data format major version is refused', async (t) => {
  const { dir, repo, store } = await openStore(t);
  const v2 = await repo.writeBlob('2\n');
  const tree = await repo.writeTree([
    { mode: '40000', type: 'tree', oid: await repo.writeTree([{ mode: '100644', type: 'blob', oid: v2, name: 'format' }]), name: '.brv' },
  ]);
  const commit = await repo.commitTree(tree, [], 'future\n');
  await git(dir, 'update-ref', 'refs/brv/heads/main', commit);
  const error = await t.throwsAsync(store.snapshot('main'));
  t.is((error as any).kind, 'unsupported-format');
});

test('trailers round-trip and stay one line each', (t) => {
  const message = formatCommitMessage('curate: a/b — multi\nline', {
    op: 'curate',
    type: 'ADD',
    reason: 'because\nof this',
    conflicts: ['a/b.html', 'c/d.html'],
  });
  t.is(
    message,
    'curate: a/b — multi line\n\nBrv-Op: curate\nBrv-Type: ADD\nBrv-Reason: because of this\nBrv-Conflicts: a/b.html\nBrv-Conflicts: c/d.html\n',
  );
  t.deepEqual(parseCommitMessage(message), {
    subject: 'curate: a/b — multi line',
    meta: { op: 'curate', type: 'ADD', reason: 'because of this', conflicts: ['a/b.html', 'c/d.html'] },
  });
});

test('the written-out blob ids of .brv/format are the ones git gives "<version>\\n" in both object formats', async (t) => {
  const known = KNOWN_FORMAT_BLOBS[FORMAT_VERSION];
  t.truthy(known, `no known blob ids for format version ${FORMAT_VERSION}`);
  for (const objectFormat of ['sha1', 'sha256'] as const) {
    const dir = await tempDir();
    await git(dir, 'init', '-q', `--object-format=${objectFormat}`);
    const { stdout } = await execa('git', ['hash-object', '--stdin'], { cwd: dir, input: `${FORMAT_VERSION}\n` });
    t.is(known![objectFormat], stdout.trim(), objectFormat);
  }
});
