import test, { type ExecutionContext } from 'ava';
import { execFileSync } from 'node:child_process';
import { chmod, cp, mkdir, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DOC_CACHE_VERSION } from '../../src/index/doc-cache.js';
import { buildDocstore, crc32, docstoreLooksValid, readDocstoreEntries } from '../../src/index/docstore.js';
import { INDEX_VERSION } from '../../src/index/tree-index.js';
import { ZEBRA_TOPICS } from '../helpers/knowledge.js';
import { openBrv } from '../helpers/service.js';
import { plantTree } from '../helpers/plant.js';
import { brvWithin, cleanup, makeRepo, tempDir } from '../helpers/repo.js';

/**
 * Local state is a cache: whatever happens to an index file (truncated, bit-flipped, emptied,
 * replaced by a directory, a FIFO, a symlink to /dev/zero, its folder replaced by a file), a query
 * gives the same answer as with a clean index — no stack trace, no hang — and the index is rebuilt.
 */

const topic = (topicPath: string, title: string, body: string) =>
  `<bv-topic path="${topicPath}" title="${title}"><bv-rule id="r1">${body}</bv-rule></bv-topic>`;

const TOPICS = ZEBRA_TOPICS;
const LATER = { 'd/four.html': topic('d/four', 'Zebra foals', 'Zebra foals stand within an hour.') };

const VARIANTS = [
  'truncated',
  'bit-flipped',
  'empty',
  'garbage',
  'directory',
  'fifo',
  'symlink to /dev/zero',
  'parent is a file',
  'mode 000',
] as const;
type Variant = (typeof VARIANTS)[number];
const IS_ROOT = process.getuid?.() === 0;

async function corrupt(file: string, variant: Variant): Promise<void> {
  const bytes = await readFile(file);
  switch (variant) {
    case 'truncated':
      return writeFile(file, bytes.subarray(0, Math.floor(bytes.length / 2)));
    case 'bit-flipped': {
      const flipped = Buffer.from(bytes);
      flipped[Math.floor(flipped.length / 2)]! ^= 0x10;
      return writeFile(file, flipped);
    }
    case 'empty':
      return writeFile(file, '');
    case 'garbage':
      return writeFile(file, Buffer.from(Array.from({ length: bytes.length }, (_, i) => (i * 131 + 7) % 256)));
    case 'directory':
      await rm(file);
      await mkdir(path.join(file, 'inside'), { recursive: true });
      return;
    case 'fifo':
      await rm(file);
      execFileSync('mkfifo', [file]);
      return;
    case 'symlink to /dev/zero':
      await rm(file);
      return symlink('/dev/zero', file);
    case 'parent is a file':
      await rm(path.dirname(file), { recursive: true });
      return writeFile(path.dirname(file), 'not a folder');
    case 'mode 000':
      return chmod(file, 0o000);
  }
}

interface Answer {
  paths: string[];
  rendered: string[];
  build: string;
}

/** `brv query` with a deadline of 20 s: a hang fails the test instead of stalling it. */
async function query(
  repo: string,
  question = 'zebras',
): Promise<{ answer?: Answer; stderr: string; exitCode?: number; timedOut: boolean }> {
  const run = await brvWithin(20_000, repo, ['query', question, '--format', 'json', '--limit', '10']);
  let answer: Answer | undefined;
  try {
    const data = JSON.parse(run.stdout).data;
    const docs = [...data.matchedDocs].sort((a: { topicPath: string }, b: { topicPath: string }) => (a.topicPath < b.topicPath ? -1 : 1));
    answer = {
      paths: docs.map((d: { topicPath: string }) => d.topicPath),
      rendered: docs.map((d: { rendered_md: string }) => d.rendered_md),
      build: data.metadata.index.build,
    };
  } catch {
    answer = undefined;
  }
  return { answer, stderr: run.stderr, exitCode: run.exitCode, timedOut: run.timedOut };
}

function indexDir(repo: string): string {
  return path.join(repo, '.git', 'brv', 'index', `v${INDEX_VERSION}.${DOC_CACHE_VERSION}`);
}

async function filesIn(dir: string, suffix: string): Promise<string[]> {
  const names = (await readdir(dir, { recursive: true })).map(String);
  const files = [];
  for (const name of names) if (name.endsWith(suffix) && (await stat(path.join(dir, name))).isFile()) files.push(path.join(dir, name));
  return files.sort();
}

/** A repository with an index built, and the clean answers before and after one more topic lands. */
async function baseline() {
  const repo = await makeRepo();
  await plantTree(repo, TOPICS);
  const clean = await query(repo);
  if (!clean.answer || clean.answer.paths.length !== 3) throw new Error(`baseline query failed: ${clean.stderr}`);
  const later = path.join(await tempDir('brv-corrupt-'), 'repo');
  await cp(repo, later, { recursive: true });
  await plantTree(later, { ...TOPICS, ...LATER });
  const cleanLater = await query(later);
  await cleanup(path.dirname(later));
  if (!cleanLater.answer || cleanLater.answer.paths.length !== 4) throw new Error(`baseline query failed: ${cleanLater.stderr}`);
  return { repo, clean: clean.answer, cleanLater: cleanLater.answer };
}

/**
 * For each variant: a copy of the repository, the files `pick` names damaged that way, then two
 * queries (the first repairs or answers from memory, the second reads what the first left).
 */
async function campaign(
  t: ExecutionContext,
  name: string,
  pick: (repo: string) => Promise<string[]>,
  options: { newTree?: boolean; dropIndex?: boolean } = {},
) {
  const { repo, clean, cleanLater } = await baseline();
  const work = await tempDir('brv-corrupt-');
  t.teardown(() => cleanup(repo, work));
  const expected = options.newTree ? cleanLater : clean;
  await Promise.all(
    VARIANTS.map(async (variant) => {
      if (variant === 'mode 000' && IS_ROOT) {
        t.log(`${name}, ${variant}: skipped — tests run as root, and root reads a mode-000 file anyway (EACCES cannot be provoked)`);
        return;
      }
      const copy = path.join(work, variant.replace(/\W+/g, '-'));
      await cp(repo, copy, { recursive: true });
      const files = await pick(copy);
      t.true(files.length > 0, `${name}: nothing to damage`);
      for (const file of files) await corrupt(file, variant).catch(() => {}); // a parent already replaced
      if (options.dropIndex) await rm(path.join(copy, '.git', 'brv', 'index'), { recursive: true, force: true });
      if (options.newTree) await plantTree(copy, { ...TOPICS, ...LATER });
      for (const round of ['first', 'second']) {
        const run = await query(copy);
        const label = `${name}, ${variant}, ${round} query`;
        t.false(run.timedOut, `${label}: hung`);
        t.is(run.exitCode, 0, `${label}: ${run.stderr}`);
        t.notRegex(run.stderr, /\n\s+at |RangeError|EISDIR|ENOTDIR|EACCES/, label);
        t.deepEqual(run.answer?.paths, expected.paths, label);
        t.deepEqual(run.answer?.rendered, expected.rendered, `${label}: rendered_md`);
      }
    }),
  );
}

test('damaged manifests: rebuilt, same answers', async (t) => {
  await campaign(t, 'manifest', (repo) => filesIn(path.join(indexDir(repo), 'trees'), '.json'));
});

test('damaged segments: rebuilt, same answers', async (t) => {
  await campaign(t, 'segment', (repo) => filesIn(path.join(indexDir(repo), 'segments'), '.seg'));
});

test('damaged docstores (rendered markdown): rebuilt, same answers', async (t) => {
  await campaign(t, 'docstore', (repo) => filesIn(path.join(indexDir(repo), 'segments'), '.seg.md'));
});

test('a damaged "last indexed tree" file: the next tree is still indexed right', async (t) => {
  await campaign(t, 'last', async (repo) => [path.join(indexDir(repo), 'last')], { newTree: true });
});

test('damaged per-blob cache entries: blobs parsed again, same answers', async (t) => {
  await campaign(t, 'doc cache entry', (repo) => filesIn(path.join(repo, '.git', 'brv', 'cache', 'docs', `v${DOC_CACHE_VERSION}`), ''), {
    dropIndex: true,
  });
});

test('the docstore CRC-32 is the IEEE one (check values)', (t) => {
  t.is(crc32(Buffer.from('')), 0);
  t.is(crc32(Buffer.from('123456789')), 0xcbf43926);
  t.is(crc32(Buffer.from('The quick brown fox jumps over the lazy dog')), 0x414fa339);
});

test('a docstore never returns damaged text: any flipped byte is index-corrupt or an invalid file', async (t) => {
  const dir = await tempDir('brv-docstore-');
  t.teardown(() => cleanup(dir));
  const texts = ['# One\n\nZebras.', '', '# Three\n\nStripes — ünïcode.', 'x'.repeat(300)];
  const bytes = buildDocstore(texts);
  const file = path.join(dir, 'store.md');
  for (let at = 0; at < bytes.length; at++) {
    const flipped = Buffer.from(bytes);
    flipped[at]! ^= 1 << (at % 8);
    await writeFile(file, flipped);
    if (!docstoreLooksValid(file, texts.length)) continue;
    try {
      const read = readDocstoreEntries(file, [0, 1, 2, 3]);
      t.fail(`byte ${at} flipped, read back ${JSON.stringify([...read.values()])}`);
    } catch (error) {
      t.is((error as { kind?: string }).kind, 'index-corrupt', `byte ${at}`);
    }
  }
  await writeFile(file, bytes);
  t.deepEqual([...readDocstoreEntries(file, [0, 1, 2, 3]).values()], texts);
});

test('an index folder that cannot be written: queries answer from an index built in memory', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, TOPICS);
  // Root ignores chmod, so the folder is made unwritable by a file standing where it belongs.
  await mkdir(path.join(repo, '.git', 'brv'), { recursive: true });
  await writeFile(path.join(repo, '.git', 'brv', 'index'), 'not a folder');
  for (const round of [1, 2]) {
    const run = await query(repo);
    t.is(run.exitCode, 0, run.stderr);
    t.notRegex(run.stderr, /\n\s+at /);
    t.deepEqual(run.answer?.paths, ['a/one', 'b/two', 'c/three'], `round ${round}`);
    t.is(run.answer?.build, 'full', 'built in memory each time');
  }
  t.is(await readFile(path.join(repo, '.git', 'brv', 'index'), 'utf8'), 'not a folder', 'left alone: not brv’s own folder');
  // A long-lived process (MCP) keeps the in-memory index: the next query is warm, a new tree is incremental.
  const brv = await openBrv(repo);
  t.teardown(() => brv.close());
  t.is((await brv.retrieval.query({ question: 'zebras' })).metadata.index.build, 'full');
  t.is((await brv.retrieval.query({ question: 'zebras' })).metadata.index.build, 'cached');
  await plantTree(repo, { ...TOPICS, ...LATER });
  const later = await brv.retrieval.query({ question: 'zebras' });
  t.is(later.metadata.index.build, 'incremental');
  t.deepEqual(later.matchedDocs.map((d) => d.topicPath).sort(), ['a/one', 'b/two', 'c/three', 'd/four']);
  const search = await brv.retrieval.search({ question: 'zebras' });
  t.is((search as { results: unknown[] }).results.length, 4);
});
