import test from 'ava';
import { ancestors, buildTree, type TreeFolder } from '../../src/web/client/tree.js';

const names = (folder: TreeFolder) => ({
  folders: folder.folders.map((f) => `${f.name}(${f.count})`),
  topics: folder.topics.map((t) => t.name),
});

test('folders with recursive counts, sorted, topics titled', (t) => {
  const root = buildTree([
    { path: 'security/auth/tokens', title: 'Token rotation' },
    { path: 'security/auth/sessions', title: '' },
    { path: 'architecture', title: 'Architecture' },
    { path: 'security/csp', title: 'CSP' },
    { path: 'api/errors', title: 'Errors' },
  ]);
  t.is(root.count, 5);
  t.deepEqual(names(root), { folders: ['api(1)', 'security(3)'], topics: ['architecture'] });
  const security = root.folders[1]!;
  t.is(security.path, 'security');
  t.deepEqual(names(security), { folders: ['auth(2)'], topics: ['csp'] });
  const auth = security.folders[0]!;
  t.is(auth.path, 'security/auth');
  t.deepEqual(
    auth.topics.map((topic) => [topic.path, topic.title]),
    [
      ['security/auth/sessions', 'sessions'],
      ['security/auth/tokens', 'Token rotation'],
    ],
  );
});

test('a path both a topic and a folder, duplicates and empty segments', (t) => {
  const root = buildTree([{ path: 'a' }, { path: 'a/b' }, { path: 'a/b' }, { path: '/c//d/' }, { path: '' }]);
  t.is(root.count, 3);
  t.deepEqual(names(root), { folders: ['a(1)', 'c(1)'], topics: ['a'] });
  t.is(root.folders[1]!.topics[0]!.path, 'c/d');
});

test('an empty list is an empty root; 100,000 topics build quickly', (t) => {
  t.deepEqual(buildTree([]), { path: '', name: '', count: 0, folders: [], topics: [] });
  const many = Array.from({ length: 100_000 }, (_, i) => ({ path: `f${i % 50}/g${i % 7}/topic-${i}`, title: `T${i}` }));
  const start = performance.now();
  const root = buildTree(many);
  const ms = performance.now() - start;
  t.is(root.count, 100_000);
  t.is(root.folders.length, 50);
  t.is(
    root.folders.reduce((n, f) => n + f.count, 0),
    100_000,
  );
  t.true(ms < 2000, `${ms} ms`);
});

test('ancestors lists the folders of a topic, outermost first', (t) => {
  t.deepEqual(ancestors('a/b/c'), ['a', 'a/b']);
  t.deepEqual(ancestors('top'), []);
});
