import test from 'ava';
import { GitRepository } from '../../src/git/repository.js';
import { measureRemoval } from '../../src/vc/removal.js';
import { cleanup, git, makeRepo } from '../helpers/repo.js';
import { plantTree } from '../helpers/plant.js';
import { testProcesses } from '../helpers/processes.js';

// What "removes" means (src/vc/removal.ts): deleted topics, and topics emptied — the blob changes to
// a smaller one of at most 4 KiB with fewer than 4 letters or digits outside markup. One repository,
// two planted trees, every case at once.

const topic = (p: string, body: string, title = `About ${p}`) => `<bv-topic path="${p}" title="${title}">${body}</bv-topic>`;
const rule = (text: string) => `<bv-rule id="r1">${text}</bv-rule>`;

test('deleted and emptied topics, told from the diff, sizes and small blobs only', async (t) => {
  const repo = await makeRepo({ commit: false });
  t.teardown(() => cleanup(repo));
  const big = rule('Zebras cross at the lights. '.repeat(300)); // ~8 KiB: never read
  const before = {
    'a/deleted.html': topic('a/deleted', rule('Gone tomorrow.')),
    'a/blank.html': topic('a/blank', rule('Sign tokens with RS256 and rotate keys yearly.')),
    'a/tbd.html': topic('a/tbd', rule('Deploy with blue-green switches.')),
    'a/comment.html': topic('a/comment', rule('Run migrations before the deploy.')),
    'a/short.html': topic('a/short', rule('Use RS256 for every signed token we issue.')),
    'a/huge.html': topic('a/huge', big),
    'a/grown.html': topic('a/grown', ''),
    'a/markup.html': topic('a/markup', rule('Keep it.')),
    'a/same.html': topic('a/same', rule('Unchanged.')),
    'notes.txt': 'not a topic',
  };
  const from = await plantTree(repo, before);
  const to = await plantTree(repo, {
    'a/blank.html': topic('a/blank', ''),
    'a/tbd.html': topic('a/tbd', rule('TBD')),
    'a/comment.html': topic('a/comment', '<!-- Run migrations first -->'),
    'a/short.html': topic('a/short', rule('Use RS256.')),
    'a/huge.html': topic('a/huge', '<bv-rule id="r1"> </bv-rule>'),
    'a/grown.html': topic('a/grown', '', 'A much longer title that says nothing at all'),
    // More than 4 KiB of markup without text: not read, so not counted.
    'a/markup.html': topic('a/markup', '<bv-rule id="r1"></bv-rule>'.repeat(200)),
    'a/same.html': topic('a/same', rule('Unchanged.')),
  });
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const tree = async (commit: string) => (await g.readCommit(commit))!.tree;
  const count = await measureRemoval(g, await tree(from), await tree(to));
  t.deepEqual(count.deleted, ['a/deleted']);
  t.deepEqual([...count.emptied].sort(), ['a/blank', 'a/comment', 'a/huge', 'a/tbd']);
  t.is(count.topics, 9);
  t.is(count.blobs.get('a/blank.html'), await git(repo, 'rev-parse', `${from}:a/blank.html`), 'the old blob, to restore on reject');
  // Nothing removed: the topics are not even counted (no listing of the tree).
  const none = await measureRemoval(g, await tree(to), await tree(from));
  t.deepEqual({ deleted: none.deleted, emptied: none.emptied, topics: none.topics }, { deleted: [], emptied: [], topics: 0 });
});
