import test from 'ava';
import { execa } from 'execa';
import { createHash } from 'node:crypto';
import { mkdir, readdir, readFile, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { syntheticTopic } from '../../bench/lib/synthetic.js';
import {
  DOC_CACHE_VERSION,
  DocCache,
  documentAt,
  parseEntry,
  serializeEntry,
  type BlobDocument,
  type CachedBlob,
} from '../../src/index/doc-cache.js';
import { blobDocument, documentFromTopic } from '../../src/index/document.js';
import { GitRepository } from '../../src/git/repository.js';
import { queryTopics } from '../../src/search/query-topics.js';
import { ContextStore } from '../../src/store/context-store.js';
import { testProcesses } from '../helpers/processes.js';
import { TreeIndexStore } from '../../src/index/tree-index.js';
import type { Brv } from '../../src/service/brv.js';
import { internals, openBrv } from '../helpers/service.js';
import { readStoredTopic } from '../../src/topic/stored.js';
import { renderTopicMarkdown } from '../../src/topic/render.js';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { ENV, git, makeRepo, tempDir } from '../helpers/repo.js';
import { fixture } from '../topic/fixtures.js';

const BLOB = 'a'.repeat(40);

/** Canonical topic HTML, as curate stores it. */
function canonical(html: string): string {
  const result = validateTopicHtml(html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
  return result.topic.canonicalHtml;
}

/** A fixed corpus (new fixtures must not change the fingerprint below): the valid fixtures of today (safe-html added with version 3: details, abbr, time), and synthetic topics. */
const FIXTURES = ['fenced-and-messy', 'full-vocabulary', 'minimal', 'stamped', 'tables-pre-diagram', 'unicode', 'safe-html'];
const corpus = () => [
  ...FIXTURES.map((name) => canonical(fixture('valid', `${name}.html`))),
  ...Array.from({ length: 40 }, (_, i) => canonical(syntheticTopic(i).html)),
];

test('an entry round-trips; a damaged, foreign or other-version entry reads as a miss', (t) => {
  const doc = blobDocument(canonical(fixture('valid', 'full-vocabulary.html')))!;
  const text = serializeEntry(BLOB, doc);
  t.deepEqual(parseEntry(text, BLOB), JSON.parse(JSON.stringify(doc)));
  const problem = { problem: 'too-deep' as const, message: 'Elements are nested more than 100 levels deep.' };
  t.deepEqual(
    parseEntry(serializeEntry(BLOB, problem), BLOB),
    problem,
    'a blob that is not a topic is remembered as such, with its problem',
  );
  // An entry of before problems were recorded (`doc: null` alone) is a miss: the blob is read again.
  const legacy = JSON.stringify({ blob: BLOB, doc: null });
  t.is(parseEntry(`brv-doc ${DOC_CACHE_VERSION} ${createHash('sha1').update(legacy).digest('hex')}\n${legacy}`, BLOB), undefined);
  t.is(parseEntry(text, 'b'.repeat(40)), undefined, 'an entry for another blob');
  t.is(parseEntry(text.slice(0, -5), BLOB), undefined, 'truncated');
  t.is(parseEntry(text.replace('"markdown":"#', '"markdown":"!'), BLOB), undefined, 'changed body');
  t.is(parseEntry(text.replace(`brv-doc ${DOC_CACHE_VERSION} `, `brv-doc ${DOC_CACHE_VERSION + 1} `), BLOB), undefined, 'another version');
  t.is(parseEntry('', BLOB), undefined);
  t.is(parseEntry('garbage\n{}', BLOB), undefined);
  // A well-formed file whose shape is wrong (digest recomputed) is a miss too.
  const body = JSON.stringify({ blob: BLOB, doc: { title: 1 } });
  t.is(parseEntry(`brv-doc ${DOC_CACHE_VERSION} ${createHash('sha1').update(body).digest('hex')}\n${body}`, BLOB), undefined);
});

test('a cached entry gives exactly the document and markdown that parsing the blob gives', (t) => {
  for (const html of corpus()) {
    const read = readStoredTopic(html);
    if (!read.ok) throw new Error(read.message);
    const root = read.root;
    const entry = parseEntry(serializeEntry(BLOB, blobDocument(html)), BLOB) as BlobDocument;
    for (const at of ['security/auth', 'x/y_z-w']) t.deepEqual(documentAt(at, BLOB, entry), { ...documentFromTopic(at, root), blob: BLOB });
    t.is(entry.markdown, renderTopicMarkdown(root));
  }
  t.like(blobDocument('<p>not a topic</p>'), { problem: 'not-a-topic' });
  t.like(blobDocument(`${'<span>'.repeat(2000)}x`), { problem: 'too-deep' });
});

/**
 * Entries are keyed by DOC_CACHE_VERSION, not by the code that made them: when extraction or
 * rendering changes what an entry holds, the version must change or old entries would be served.
 */
test('DOC_CACHE_VERSION is bumped whenever extraction or rendering output changes', (t) => {
  const hash = createHash('sha256');
  for (const html of corpus()) hash.update(serializeEntry(BLOB, blobDocument(html)));
  const fingerprint = `${DOC_CACHE_VERSION}:${hash.digest('hex').slice(0, 16)}`;
  t.is(
    fingerprint,
    // 6: issue 31's rendering (entity-encoded `<` and `&`, encoded link destinations, indented code
    // where a renderer without fences would read markup; `[must] \(id)` only when either is not a plain word).
    '8:ec4186767afb6e2d',
    'What blobDocument produces changed: bump DOC_CACHE_VERSION in src/index/doc-cache.ts, then record the new fingerprint here.',
  );
});

/** Every file below the cache's version folder, relative, sorted. */
async function cacheFiles(cache: DocCache): Promise<string[]> {
  const entries = await readdir(cache.dir, { recursive: true, withFileTypes: true });
  return entries
    .filter((e) => !e.isDirectory())
    .map((e) => path.relative(cache.dir, path.join(e.parentPath, e.name)))
    .sort();
}

const packName = (file: string) => file.replace(/^packs\/[0-9a-f]{40}\.pack$/, 'packs/<sha1>.pack');

/** A repository of imported topics (the import also writes their cache entries). */
async function importedRepo(count: number) {
  const repo = await makeRepo();
  const dir = await tempDir();
  for (let i = 0; i < count; i++) {
    const topic = syntheticTopic(i);
    await mkdir(path.join(dir, path.dirname(topic.path)), { recursive: true });
    await writeFile(path.join(dir, `${topic.path}.html`), topic.html);
  }
  const brv = await openBrv(repo);
  const imported = await brv.knowledge.importTree({ directory: dir }, {});
  if (!imported.ok) throw new Error(JSON.stringify(imported.problems));
  return { repo, brv, commonDir: path.join(repo, '.git') };
}

const QUESTIONS = ['token rotation', 'postgres replica timeout', 'webhook retries', 'kafka consumer lag', 'billing invoice'];

async function answers(indexes: TreeIndexStore, brv: Brv) {
  const snapshot = await internals(brv).store.snapshot(brv.branch);
  const results = [];
  for (const question of QUESTIONS) {
    const result = await queryTopics(indexes, snapshot, question, { limit: 50 });
    results.push({ question, totalFound: result.metadata.totalFound, docs: result.matchedDocs });
  }
  return results;
}

test('a full build reads the cache import wrote, parses nothing, and answers exactly as a build that parses everything', async (t) => {
  const { brv, commonDir } = await importedRepo(60);
  try {
    const cache = DocCache.forRepository(commonDir);
    const warm = new TreeIndexStore(internals(brv).repo, path.join(commonDir, 'brv', 'index'), cache);
    const tree = (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
    const built = await warm.open(tree);
    t.like(built, { build: 'full', parsedTopics: 0, cachedTopics: 60 });
    // A store with an empty cache parses every topic, and leaves filling that cache to maintenance.
    const coldCache = new DocCache(path.join(await tempDir(), 'docs'));
    const cold = new TreeIndexStore(internals(brv).repo, path.join(await tempDir(), 'index'), coldCache);
    // 60 small topics: too few bytes to start maintenance for (FILL_CACHE_FROM_BYTES).
    t.like(await cold.open(tree), { build: 'full', parsedTopics: 60, cachedTopics: 0, compaction: 'none' });
    t.deepEqual(await answers(warm, brv), await answers(cold, brv));
    t.deepEqual(await cacheFiles(coldCache), ['swept']);
    t.like(await cold.compactTree(tree), { compacted: false, cachedTopics: 60 });
    t.like(await cold.compactTree(tree), { compacted: false, cachedTopics: 0 }, 'once');
    // The cache the cold build wrote holds the same entries as the one import wrote, each in one pack.
    const blobs = Array.from({ length: 60 }, (_, i) => built.stack.segments[0]!.blob(i));
    t.deepEqual(new DocCache(coldCache.root).read(blobs), new DocCache(cache.root).read(blobs));
    t.true(new DocCache(cache.root).read(blobs).every((entry) => entry !== undefined));
    for (const written of [cache, coldCache]) t.deepEqual((await cacheFiles(written)).map(packName), ['packs/<sha1>.pack', 'swept']);
  } finally {
    brv.close();
  }
});

test('a damaged or missing entry is parsed again and rewritten; a rebuild after that parses nothing', async (t) => {
  const { brv, commonDir } = await importedRepo(12);
  try {
    const cache = DocCache.forRepository(commonDir);
    const indexRoot = path.join(commonDir, 'brv', 'index');
    const tree = (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
    const first = await new TreeIndexStore(internals(brv).repo, indexRoot, cache).open(tree);
    const expected = await answers(new TreeIndexStore(internals(brv).repo, indexRoot, cache), brv);
    const [damaged, missing] = [first.stack.segments[0]!.blob(2), first.stack.segments[0]!.blob(5)];
    const text = await readFile(cache.file(damaged), 'utf8');
    await writeFile(cache.file(damaged), text.replace(/"body":"./, '"body":"X'));
    await rm(cache.file(missing));
    await rm(indexRoot, { recursive: true });
    const rebuilt = new TreeIndexStore(internals(brv).repo, indexRoot, cache);
    t.like(await rebuilt.open(tree), { build: 'full', parsedTopics: 2, cachedTopics: 10 });
    t.deepEqual(await answers(rebuilt, brv), expected);
    t.like(await rebuilt.compactTree(tree), { cachedTopics: 2 });
    t.is(await readFile(cache.file(damaged), 'utf8'), text, 'the damaged entry is rewritten');
    await rm(indexRoot, { recursive: true });
    t.like(await new TreeIndexStore(internals(brv).repo, indexRoot, cache).open(tree), { parsedTopics: 0, cachedTopics: 12 });
  } finally {
    brv.close();
  }
});

test('a blob that is not a topic is cached as such and not parsed again', async (t) => {
  const repo = await makeRepo();
  // Written by plain git, as anything can move a brv ref.
  const run = (args: string[], input?: string) =>
    execa('git', args, { cwd: repo, env: { ...ENV, GIT_INDEX_FILE: path.join(repo, '.git', 'junk-index') }, extendEnv: false, input }).then(
      (r) => r.stdout.trim(),
    );
  const oid = await run(['hash-object', '-w', '--stdin'], '<p>hello, not a topic</p>');
  await run(['update-index', '--add', '--cacheinfo', `100644,${oid},misc/junk.html`]);
  const commit = await run(['commit-tree', await run(['write-tree']), '-m', 'junk']);
  await git(repo, 'update-ref', 'refs/brv/heads/main', commit);
  const brv = await openBrv(repo);
  try {
    const tree = (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
    const cache = DocCache.forRepository(path.join(repo, '.git'));
    const indexRoot = path.join(repo, '.git', 'brv', 'index');
    const indexes = new TreeIndexStore(internals(brv).repo, indexRoot, cache);
    t.like(await indexes.open(tree), { parsedTopics: 1, cachedTopics: 0 });
    t.like(await indexes.compactTree(tree), { cachedTopics: 1 });
    t.like(cache.read([oid])[0], { problem: 'not-a-topic' });
    await rm(indexRoot, { recursive: true });
    t.like(await new TreeIndexStore(internals(brv).repo, indexRoot, cache).open(tree), { parsedTopics: 0, cachedTopics: 1 });
  } finally {
    brv.close();
  }
});

test('the sweep keeps entries indexed segments use and fresh ones; it drops old unused entries, temp files and other versions', async (t) => {
  const { brv, commonDir } = await importedRepo(8);
  try {
    const cache = DocCache.forRepository(commonDir);
    const indexes = new TreeIndexStore(internals(brv).repo, path.join(commonDir, 'brv', 'index'), cache);
    await indexes.open((await internals(brv).store.snapshot(brv.branch)).commit!.tree);
    const unused = new Map([
      ['b'.repeat(40), { problem: 'not-a-topic' as const, message: '' }],
      ['c'.repeat(40), { problem: 'not-a-topic' as const, message: '' }],
    ]);
    cache.write(unused);
    const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
    await utimes(cache.file('b'.repeat(40)), old, old);
    const temp = `${cache.file('d'.repeat(40))}.123.abc.tmp`;
    await mkdir(path.dirname(temp), { recursive: true });
    await writeFile(temp, 'partial');
    await utimes(temp, old, old);
    const otherVersion = path.join(cache.root, `v${DOC_CACHE_VERSION + 7}`);
    await mkdir(otherVersion, { recursive: true });
    // Every entry is older than the grace period here except the fresh unused one.
    for (const prefix of await readdir(cache.dir)) {
      if (!/^[0-9a-f]{2}$/.test(prefix)) continue;
      for (const name of await readdir(path.join(cache.dir, prefix))) {
        if (prefix + name !== 'c'.repeat(40)) await utimes(path.join(cache.dir, prefix, name), old, old);
      }
    }
    t.is(await indexes.sweepDocCache(), undefined, 'the open above swept already: not due again for a day');
    const swept = await indexes.sweepDocCache({ force: true });
    t.deepEqual(swept, { kept: 9, removed: 1 });
    t.false(new DocCache(cache.root).has('b'.repeat(40)));
    t.true(new DocCache(cache.root).has('c'.repeat(40)));
    // The old entries the index uses were folded into one pack; the fresh unused one stays loose.
    t.deepEqual((await cacheFiles(cache)).map(packName), ['cc/cccccccccccccccccccccccccccccccccccccc', 'packs/<sha1>.pack', 'swept']);
    await t.throwsAsync(stat(temp));
    await t.throwsAsync(stat(otherVersion));
    // Everything the index uses is still there: a rebuild parses nothing.
    await rm(path.join(commonDir, 'brv', 'index'), { recursive: true });
    t.like(await indexes.open((await internals(brv).store.snapshot(brv.branch)).commit!.tree), { parsedTopics: 0, cachedTopics: 8 });
  } finally {
    brv.close();
  }
});

/** `count` entries for made-up blobs (every fifth a real topic's document, the rest problems with distinct messages). */
function entries(count: number, from = 0): Map<string, CachedBlob> {
  const made = new Map<string, CachedBlob>();
  for (let i = from; i < from + count; i++) {
    const blob = createHash('sha1').update(`blob ${i}`).digest('hex');
    made.set(blob, i % 5 === 0 ? blobDocument(canonical(syntheticTopic(i).html)) : { problem: 'not-a-topic', message: `entry ${i}` });
  }
  return made;
}

/** What a fresh reader finds: per blob, the entry (as stored: a JSON round trip) or undefined. */
function readAll(root: string, wanted: ReadonlyMap<string, CachedBlob>): Array<CachedBlob | undefined> {
  return new DocCache(root).read([...wanted.keys()]);
}

const stored = (wanted: ReadonlyMap<string, CachedBlob>) => [...wanted.values()].map((doc) => JSON.parse(JSON.stringify(doc)));

test('a bulk write is one pack, a small one loose files; a new reader finds both, and has() knows them', async (t) => {
  const cache = new DocCache(path.join(await tempDir(), 'docs'));
  const bulk = entries(100);
  const small = entries(3, 100);
  cache.write(bulk);
  t.deepEqual((await cacheFiles(cache)).map(packName), ['packs/<sha1>.pack']);
  cache.write(small);
  t.is((await cacheFiles(cache)).length, 4);
  t.deepEqual(readAll(cache.root, bulk), stored(bulk));
  t.deepEqual(readAll(cache.root, small), stored(small));
  const fresh = new DocCache(cache.root);
  for (const blob of [...bulk.keys(), ...small.keys()]) t.true(fresh.has(blob));
  t.false(fresh.has('f'.repeat(40)));
  t.deepEqual(fresh.read(['f'.repeat(40), [...bulk.keys()][7]!]), [undefined, stored(bulk)[7]]);
});

test('a damaged, truncated or planted pack is a miss, never a wrong entry, a throw or a hang', async (t) => {
  const cache = new DocCache(path.join(await tempDir(), 'docs'));
  const written = entries(40);
  cache.write(written);
  const [name] = await readdir(cache.packs);
  const file = path.join(cache.packs, name!);
  const good = await readFile(file);
  const expected = stored(written);
  const entriesEnd = good.readUInt32LE(good.length - 36 + 4);
  /** Reads every blob with a fresh reader: each is its right entry or a miss; returns the hits. */
  const hits = (what: string) => {
    let found: Array<CachedBlob | undefined> = [];
    t.notThrows(() => {
      found = readAll(cache.root, written);
    }, what);
    found.forEach((entry, i) => {
      if (entry !== undefined) t.deepEqual(entry, expected[i], what);
    });
    const asked = new DocCache(cache.root);
    t.notThrows(() => [...written.keys()].forEach((blob) => asked.has(blob)), what);
    return found.filter((e) => e !== undefined).length;
  };
  t.is(hits('intact'), 40);
  for (const length of [0, 8, 16, 100, entriesEnd, good.length - 36, good.length - 1]) {
    await writeFile(file, good.subarray(0, length));
    t.is(hits(`truncated to ${length}`), 0, `truncated to ${length}`);
  }
  await writeFile(file, Buffer.concat([good, Buffer.from('x')]));
  t.is(hits('a byte appended'), 0);
  const positions = new Set<number>();
  for (let at = 0; at < good.length; at += 211) positions.add(at);
  for (let at = Math.max(0, entriesEnd - 40); at < good.length; at += 13) positions.add(at); // index, trailer
  for (const at of positions) {
    const flipped = Buffer.from(good);
    flipped[at]! ^= 1 << (at % 8);
    await writeFile(file, flipped);
    // A flip inside the entries costs the one entry it hits; anywhere else, the whole pack.
    t.is(hits(`byte ${at} flipped`), at >= 16 && at < entriesEnd ? 39 : 0, `byte ${at} flipped`);
  }
  // Planted in its place: a FIFO (never waited on), a symbolic link to a good pack (not followed), a directory.
  const elsewhere = path.join(await tempDir(), 'good.pack');
  await writeFile(elsewhere, good);
  await rm(file);
  await execa('mkfifo', [file]);
  t.is(hits('a FIFO'), 0);
  await rm(file);
  await symlink(elsewhere, file);
  t.is(hits('a symbolic link'), 0);
  await rm(file);
  await mkdir(file);
  t.is(hits('a directory'), 0);
  // The sweep copes too, and leaves what it cannot read alone.
  await t.notThrowsAsync(cache.sweep(new Set(written.keys()), 0));
  await rm(file, { recursive: true });
  await writeFile(file, good);
  t.is(hits('restored'), 40);
});

test('the sweep rewrites old packs to what is referenced and folds old loose entries in; a reader meanwhile always finds them', async (t) => {
  const cache = new DocCache(path.join(await tempDir(), 'docs'));
  const [partly, wholly, loose, unused, young] = [entries(40), entries(40, 40), entries(5, 80), entries(2, 85), entries(40, 87)];
  const referenced = new Set([...[...partly.keys()].slice(0, 20), ...wholly.keys(), ...loose.keys()]);
  cache.write(partly);
  cache.write(wholly);
  cache.write(loose);
  cache.write(unused);
  const old = new Date(Date.now() - 2 * 24 * 3600 * 1000);
  for (const file of await cacheFiles(cache)) await utimes(path.join(cache.dir, file), old, old);
  const oldPacks = new Set(await readdir(cache.packs));
  cache.write(young); // a fresh pack (an import whose query has not run): kept as it is
  const youngPack = (await readdir(cache.packs)).find((n) => !oldPacks.has(n));
  const oldTemp = path.join(cache.packs, '123-abc.pack.tmp');
  await writeFile(oldTemp, 'half a pack');
  await utimes(oldTemp, old, old);
  const want = new Map([...partly, ...wholly, ...loose].filter(([blob]) => referenced.has(blob)));
  let done = false;
  let reads = 0;
  const reader = (async () => {
    while (!done) {
      t.deepEqual(readAll(cache.root, want), stored(want), 'a referenced entry is always found');
      reads++;
      await new Promise((resolve) => setImmediate(resolve));
    }
  })();
  const swept = await cache.sweep(referenced);
  done = true;
  await reader;
  t.true(reads > 1);
  t.deepEqual(swept, { kept: 20 + 40 + 5 + 40, removed: 20 + 2 });
  const after = await cacheFiles(cache);
  t.is(after.length, 2, after.join(' '));
  t.true(after.every((f) => /^packs\/[0-9a-f]{40}\.pack$/.test(f)));
  t.true(youngPack !== undefined && after.includes(`packs/${youngPack}`));
  t.deepEqual(readAll(cache.root, want), stored(want));
  t.deepEqual(readAll(cache.root, young), stored(young));
  t.true(readAll(cache.root, unused).every((e) => e === undefined));
  t.true(
    readAll(cache.root, partly)
      .slice(20)
      .every((e) => e === undefined),
  );
  // Nothing more to do: a second sweep changes nothing.
  t.deepEqual(await cache.sweep(referenced), { kept: 20 + 40 + 5 + 40, removed: 0 });
  t.deepEqual(await cacheFiles(cache), after);
});

test('a pack being written holds its index records only, not the entries already written', async (t) => {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as () => void;
  const cache = new DocCache(path.join(await tempDir(), 'docs'));
  const writer = cache.writer();
  gc();
  const before = process.memoryUsage().arrayBuffers;
  // 20,000 entries of ~2 KiB: 40 MiB written. A 20-byte Buffer per oid (a slice of Node's shared
  // pool) kept every pool slab alive, with the entries serialized beside it: all 40 MiB.
  for (let i = 0; i < 20_000; i++) {
    writer.add(createHash('sha1').update(`blob ${i}`).digest('hex'), { problem: 'not-a-topic', message: `${i} ${'m'.repeat(2000)}` });
  }
  gc();
  await new Promise((resolve) => setTimeout(resolve, 50));
  gc();
  const held = process.memoryUsage().arrayBuffers - before;
  t.true(held < 8 * 1024 * 1024, `${Math.round(held / 1024 / 1024)} MiB held`);
  writer.finish();
  t.deepEqual((await cacheFiles(cache)).map(packName), ['packs/<sha1>.pack']);
});

test('a full build of more topics than one chunk merges parts whose docstores were spilled to files, and leaves no temporary file', async (t) => {
  const repo = await makeRepo();
  const g = await GitRepository.open(repo, testProcesses());
  t.teardown(() => g.close());
  const store = new ContextStore(g, async () => ({ enabled: true, gate: false }));
  const topics = Array.from(
    { length: 2300 },
    (_, i) => `<bv-topic path="d${i % 30}/t${i}" title="Topic ${i}"><bv-rule>Rule ${i}: zebra${i} stripes.</bv-rule></bv-topic>`,
  );
  const blobs = await g.writeBlobs(topics);
  await store.commit('main', async () => ({
    write: { edits: blobs.map((blob, i) => ({ path: `d${i % 30}/t${i}.html`, blob })), subject: 'bulk', meta: { op: 'import' } },
    result: null,
  }));
  const tree = (await store.snapshot('main')).commit!.tree;
  const indexRoot = path.join(await tempDir(), 'index');
  const indexes = new TreeIndexStore(g, indexRoot, new DocCache(path.join(await tempDir(), 'docs')));
  const opened = await indexes.open(tree);
  t.like(opened, { build: 'full', parsedTopics: 2300 });
  const segment = opened.stack.segments[0]!;
  t.is(segment.docCount, 2300);
  const wanted = [0, 1, 1000, 1999, 2000, 2001, 2299].map((doc) => ({ segment: 0, doc }));
  const texts = await indexes.rendered(opened, wanted);
  texts.forEach((text, k) => {
    const i = Number(/t(\d+)$/.exec(segment.path(wanted[k]!.doc))![1]);
    const doc = blobDocument(topics[i]!) as BlobDocument;
    t.deepEqual(text, { markdown: doc.markdown, text: doc.text }, `doc ${wanted[k]!.doc} (topic ${i})`);
  });
  const files = (await readdir(indexRoot, { recursive: true })).map(String);
  t.deepEqual(
    files.filter((f) => f.endsWith('.tmp')),
    [],
  );
});

test('what a full build left uncached is cached by the maintenance of a tree indexed incrementally after it', async (t) => {
  const { brv, commonDir } = await importedRepo(12);
  try {
    const coldCache = new DocCache(path.join(await tempDir(), 'docs'));
    // Every build is worth a maintenance process here, however small.
    const indexes = new TreeIndexStore(internals(brv).repo, path.join(commonDir, 'brv', 'index'), coldCache, { fillCacheFromBytes: 0 });
    const tree = async () => (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
    t.like(await indexes.open(await tree()), { build: 'full', parsedTopics: 12, compaction: 'due' });
    const curated = await brv.knowledge.curateHtml(
      { html: '<bv-topic path="notes/later" title="Later"><bv-rule id="r1">A later note.</bv-rule></bv-topic>', overwrite: false },
      { agent: 'test' },
    );
    t.true(curated.ok);
    const next = await tree();
    // The incremental build caches the topic it read itself; the twelve the full build left are still due.
    t.like(await indexes.open(next), { build: 'incremental', parsedTopics: 1, compaction: 'due' });
    t.like(await indexes.compactTree(next), { cachedTopics: 12 });
    await rm(path.join(commonDir, 'brv', 'index'), { recursive: true });
    const rebuilt = new TreeIndexStore(internals(brv).repo, path.join(commonDir, 'brv', 'index'), coldCache);
    t.like(await rebuilt.open(next), { build: 'full', parsedTopics: 0, cachedTopics: 13, compaction: 'none' });
  } finally {
    brv.close();
  }
});

test('a full build too small to be worth a maintenance process is not due, and maintenance run for another reason still caches it', async (t) => {
  const { brv, commonDir } = await importedRepo(12);
  try {
    const coldCache = new DocCache(path.join(await tempDir(), 'docs'));
    const indexRoot = path.join(commonDir, 'brv', 'index');
    const tree = async () => (await internals(brv).store.snapshot(brv.branch)).commit!.tree;
    const first = await tree();
    const bytes = (await internals(brv).repo.listTreeBlobs(first))
      .filter((b) => b.path.endsWith('.html'))
      .reduce((sum, b) => sum + b.size!, 0);
    // The threshold is in bytes parsed: just above this build, it is not due; at it, it is.
    const above = new TreeIndexStore(internals(brv).repo, indexRoot, coldCache, { fillCacheFromBytes: bytes + 1 });
    t.like(await above.open(first), { build: 'full', parsedTopics: 12, compaction: 'none' });
    await rm(indexRoot, { recursive: true });
    t.like(await new TreeIndexStore(internals(brv).repo, indexRoot, coldCache, { fillCacheFromBytes: bytes }).open(first), {
      build: 'full',
      parsedTopics: 12,
      compaction: 'due',
    });
    await rm(indexRoot, { recursive: true });

    const indexes = new TreeIndexStore(internals(brv).repo, indexRoot, coldCache);
    t.like(await indexes.open(first), { build: 'full', parsedTopics: 12, compaction: 'none' });
    await brv.knowledge.curateHtml(
      { html: '<bv-topic path="notes/later" title="Later"><bv-rule id="r1">A later note.</bv-rule></bv-topic>', overwrite: false },
      { agent: 'test' },
    );
    const next = await tree();
    // The mark passes to the next tree, still not due.
    t.like(await indexes.open(next), { build: 'incremental', parsedTopics: 1, compaction: 'none' });
    // Maintenance (`brv maintenance`, or one started to compact) caches the twelve all the same.
    t.like(await indexes.compactTree(next), { cachedTopics: 12 });
    await rm(indexRoot, { recursive: true });
    t.like(await new TreeIndexStore(internals(brv).repo, indexRoot, coldCache).open(next), {
      build: 'full',
      parsedTopics: 0,
      cachedTopics: 13,
    });
  } finally {
    brv.close();
  }
});
