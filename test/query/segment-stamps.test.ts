import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import test from 'ava';
import { ZEBRA_TOPICS } from '../helpers/knowledge.js';
import { execa } from 'execa';
import { mkdir, readdir, readFile, rename, rm, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DOC_CACHE_VERSION } from '../../src/index/doc-cache.js';
import {
  MAX_STAMPS,
  parseStamps,
  COARSE_RACY_WINDOW_NS,
  FINE_RACY_WINDOW_NS,
  serializeStamps,
  trusted,
  type FileStamp,
} from '../../src/index/segment-stamps.js';
import { INDEX_VERSION, TreeIndexStore, type TreeIndex } from '../../src/index/tree-index.js';
import { testProcesses } from '../helpers/processes.js';
import { GitRepository } from '../../src/git/repository.js';
import { Segment } from '../../src/index/segment.js';
import { plantTree } from '../helpers/plant.js';
import { CLI, ENV, makeRepo } from '../helpers/repo.js';

/**
 * An index open skips the SHA-256 check of a segment whose file status equals a settled stamp
 * (src/index/segment-stamps.ts). These tests hold that the skip never lets a damaged segment through.
 */

const TOPICS = ZEBRA_TOPICS;

const STAMP: FileStamp = {
  dev: 2049n,
  ino: 123456n,
  size: 4096n,
  mtimeNs: 1_700_000_000_123_456_789n,
  ctimeNs: 1_700_000_000_223_456_789n,
};

test('the racy rule: a stamp is trusted only when the file is older than the stamp file by more than the window', (t) => {
  const { ctimeNs } = STAMP;
  t.false(trusted(STAMP, STAMP, ctimeNs), 'written in the same nanosecond as the file changed');
  t.false(trusted(STAMP, STAMP, ctimeNs + 50_000_000n), '50 ms later');
  t.false(trusted(STAMP, STAMP, ctimeNs + FINE_RACY_WINDOW_NS), 'not strictly older');
  t.true(trusted(STAMP, STAMP, ctimeNs + FINE_RACY_WINDOW_NS + 1n));
  const late = ctimeNs + FINE_RACY_WINDOW_NS + 1n;
  t.false(trusted(STAMP, { ...STAMP, mtimeNs: late - FINE_RACY_WINDOW_NS }, late), 'a racy mtime');
  t.false(trusted(undefined, STAMP, ctimeNs + COARSE_RACY_WINDOW_NS));
  for (const field of ['dev', 'ino', 'size', 'mtimeNs', 'ctimeNs'] as const)
    t.false(trusted(STAMP, { ...STAMP, [field]: STAMP[field] - 1n }, late), `${field} differs`);
  // A stamp file with a whole-second mtime: a file system that keeps seconds (or FAT's 2 s), the wide window.
  const second = 1_000_000_000n;
  const coarse = { ...STAMP, mtimeNs: 1_700_000_000n * second, ctimeNs: 1_700_000_000n * second };
  t.false(trusted(coarse, coarse, coarse.ctimeNs), 'the same second');
  t.false(trusted(coarse, coarse, coarse.ctimeNs + 2n * second));
  t.false(trusted(coarse, coarse, coarse.ctimeNs + COARSE_RACY_WINDOW_NS), 'not strictly older');
  t.true(trusted(coarse, coarse, coarse.ctimeNs + COARSE_RACY_WINDOW_NS + second));
  t.false(trusted(STAMP, STAMP, ((ctimeNs + 2n * second) / second) * second), 'a fine stamp judged by a whole-second stamp file');
  t.true(trusted(STAMP, STAMP, ((ctimeNs + 4n * second) / second) * second));
});

test('the stamp file round-trips, and anything damaged reads as no stamps (never a throw)', (t) => {
  const file = `${'0123456789abcdef'.repeat(2)}.seg`;
  const text = serializeStamps([[file, STAMP]]);
  t.deepEqual([...parseStamps(text)], [[file, STAMP]]);
  t.regex(text, /^brv-segment-stamps 1 crc32:[0-9a-f]{8}\n/);
  const flipped = text.replace('123456 ', '123457 ');
  const body = text.slice(text.indexOf('\n') + 1);
  const garbled = [
    '',
    'garbage',
    '\n\n\n',
    flipped,
    text.slice(0, -10),
    text.replace('brv-segment-stamps 1', 'brv-segment-stamps 2'),
    `${text}extra line without a newline`,
    serializeStamps([['../../etc/passwd', STAMP]]),
    serializeStamps([[file, { ...STAMP, ino: 10n ** 30n }]]),
    serializeStamps(Array.from({ length: MAX_STAMPS + 1 }, (_, i): [string, FileStamp] => [`${String(i).padStart(32, '0')}.seg`, STAMP])),
    body,
    `brv-segment-stamps 1 ${createHash('sha256').update(body).digest('hex')}\n${body}`,
    Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) % 256)).toString('utf8'),
  ];
  for (const [i, bad] of garbled.entries()) t.is(parseStamps(bad).size, 0, `variant ${i}`);
});

/** A repository with the three topics committed, its tree, and a function opening its index with a new store (as a new process would). */
async function indexed(t: { teardown(fn: () => unknown): void }) {
  const repo = await makeRepo();
  await plantTree(repo, TOPICS);
  const tree = (await execa('git', ['rev-parse', 'refs/brv/heads/main^{tree}'], { cwd: repo, env: ENV, extendEnv: false })).stdout.trim();
  const git = await GitRepository.open(repo, testProcesses());
  t.teardown(() => git.close());
  const root = path.join(repo, '.git', 'brv', 'index');
  const dir = path.join(root, `v${INDEX_VERSION}.${DOC_CACHE_VERSION}`);
  const open = () => new TreeIndexStore(git, root).open(tree);
  const built = await open();
  const segments = (await readdir(path.join(dir, 'segments'))).filter((n) => n.endsWith('.seg'));
  if (segments.length !== 1) throw new Error(`expected one segment, found ${segments.join(', ')}`);
  const stamps = path.join(dir, 'segment-stamps');
  // A loaded machine can take longer than the stamp delay limit, and then no stamp is written: each
  // open that hashes the segment writes it again, so open until there is one.
  for (let attempt = 0; attempt < 8 && !existsSync(stamps); attempt++) await open();
  return { repo, open, built, segment: path.join(dir, 'segments', segments[0]!), stamps };
}

const paths = (index: Pick<TreeIndex, 'stack'> | { stack: { segments: Segment[] } }) =>
  index.stack.segments.flatMap((s) => Array.from({ length: s.docCount }, (_, d) => s.path(d))).sort();

/** Moves the stamp file's mtime (the moment the stamps count as taken) to `seconds` after the segment last changed. */
/**
 * Opens until the segment's stamp is recorded and used. A stamp written more than 50 ms after its
 * fstat is not recorded (a loaded machine can do that); each open that hashes writes it again.
 */
async function settled(open: () => Promise<TreeIndex>, stamps: string, segment: string): Promise<TreeIndex> {
  let index: TreeIndex | undefined;
  for (let attempt = 0; attempt < 8; attempt++) {
    await stampedAfter(stamps, segment, 10);
    index = await open();
    if (index.hashedSegments === 0) break;
  }
  return index!;
}

async function stampedAfter(stamps: string, segment: string, seconds: number): Promise<void> {
  const changed = Number((await stat(segment, { bigint: true })).ctimeNs) / 1e9;
  await utimes(stamps, changed + seconds, changed + seconds);
}

/** Sets a file's mtime to the nanosecond (Node's utimes rounds to a double of seconds). */
async function restoreMtime(file: string, mtimeNs: bigint): Promise<void> {
  const ns = String(mtimeNs % 1_000_000_000n).padStart(9, '0');
  await execa('touch', ['-m', '-d', `@${mtimeNs / 1_000_000_000n}.${ns}`, file]);
}

async function cliQuery(repo: string): Promise<string[]> {
  const run = await execa('node', [CLI, 'query', 'zebras', '--format', 'json'], { cwd: repo, env: ENV, extendEnv: false, stdin: 'ignore' });
  return JSON.parse(run.stdout)
    .data.matchedDocs.map((d: { topicPath: string }) => d.topicPath)
    .sort();
}

test('a segment checked once, long enough ago, is not hashed again on the next open', async (t) => {
  const { open, built, segment, stamps } = await indexed(t);
  t.is(built.build, 'full');
  t.is(built.hashedSegments, 1, 'the new segment is read back and checked');
  const warm = await settled(open, stamps, segment);
  t.is(warm.build, 'cached');
  t.is(warm.hashedSegments, 0);
  t.deepEqual(paths(warm), ['a/one', 'b/two', 'c/three']);
});

test('the racy rule: a stamp written within the window after the segment changed is not trusted', async (t) => {
  const { open, segment, stamps } = await indexed(t);
  // On a loaded machine an open's rewrite of the stamp file can come over 50 ms after its fstat, and
  // is then (rightly) written without the record: settle again and retry the sequence (at most 4 times).
  for (let attempt = 1; ; attempt++) {
    await settled(open, stamps, segment);
    const tried = await t.try(async (tt) => {
      // As if the stamp had been taken 50 ms after the segment was written: within a kernel tick or two.
      await stampedAfter(stamps, segment, 0.05);
      tt.is((await open()).hashedSegments, 1, 'hashed again');
      // That open rewrote the stamp file; it is racy again until the window has passed.
      await stampedAfter(stamps, segment, 0.05);
      tt.is((await open()).hashedSegments, 1);
      await stampedAfter(stamps, segment, 0.5);
      tt.is((await open()).hashedSegments, 0, 'settled');
      // A stamp file with a whole-second mtime (a file system that keeps seconds): the window is 3 s.
      const changed = (await stat(segment, { bigint: true })).ctimeNs / 1_000_000_000n;
      await utimes(stamps, Number(changed) + 2, Number(changed) + 2);
      tt.is((await open()).hashedSegments, 1, 'racy on a whole-second file system');
      await utimes(stamps, Number(changed) + 5, Number(changed) + 5);
      tt.is((await open()).hashedSegments, 0);
    });
    if (tried.passed || attempt === 4) {
      tried.commit();
      return;
    }
    tried.discard();
  }
});

test('a segment damaged after a stamped open (same size, mtime put back) is detected, and the index rebuilt', async (t) => {
  const { repo, open, segment, stamps } = await indexed(t);
  t.is((await settled(open, stamps, segment)).hashedSegments, 0);
  const before = await stat(segment, { bigint: true });
  const bytes = await readFile(segment);
  // A flipped byte in a stored path: damage the segment's own structure checks cannot see, only its hash.
  const flipped = Buffer.from(bytes);
  const at = flipped.indexOf('c/three');
  t.true(at > 0);
  flipped[at + 6] = 'f'.charCodeAt(0);
  t.deepEqual(paths({ stack: { segments: [Segment.open(flipped)] } }), ['a/one', 'b/two', 'c/thref'], 'it opens, with a wrong path');
  await writeFile(segment, flipped); // in place: same inode, same size
  await restoreMtime(segment, before.mtimeNs); // ctime moves anyway
  const after = await stat(segment, { bigint: true });
  t.like(after, { dev: before.dev, ino: before.ino, size: before.size, mtimeNs: before.mtimeNs }, 'only ctime tells');
  t.not(after.ctimeNs, before.ctimeNs);
  const reopened = await open();
  t.is(reopened.hashedSegments >= 1, true, 'the changed ctime sends it to the hash');
  t.not(reopened.build, 'cached', 'rebuilt');
  t.deepEqual(paths(reopened), ['a/one', 'b/two', 'c/three']);
  t.deepEqual(await readFile(segment), bytes, 'the damaged file was replaced');
  // The same through the CLI: the right answer, never a crash.
  await writeFile(segment, flipped);
  await restoreMtime(segment, (await stat(segment, { bigint: true })).mtimeNs);
  t.deepEqual(await cliQuery(repo), ['a/one', 'b/two', 'c/three']);
});

test('a segment swapped in by hand (renamed over it, same size and times) is detected', async (t) => {
  const { open, segment, stamps } = await indexed(t);
  t.is((await settled(open, stamps, segment)).hashedSegments, 0);
  const before = await stat(segment, { bigint: true });
  const bytes = await readFile(segment);
  const other = `${segment}.swap`;
  await writeFile(other, Buffer.from(bytes).fill(0x41, 64, 128));
  await restoreMtime(other, before.mtimeNs);
  await rename(other, segment);
  t.like(await stat(segment, { bigint: true }), { size: before.size, mtimeNs: before.mtimeNs });
  const reopened = await open();
  t.true(reopened.hashedSegments >= 1);
  t.not(reopened.build, 'cached');
  t.deepEqual(paths(reopened), ['a/one', 'b/two', 'c/three']);
});

test('a garbled, missing or hostile stamp file is harmless: segments are hashed and the file rewritten', async (t) => {
  const { open, segment, stamps } = await indexed(t);
  const good = await readFile(stamps, 'utf8');
  const variants: Array<[string, () => Promise<void>]> = [
    ['garbage', () => writeFile(stamps, 'brv-segment-stamps 1 nonsense\n\u0000\u00ff')],
    ['empty', () => writeFile(stamps, '')],
    ['missing', () => rm(stamps, { force: true })],
    ['too large', () => writeFile(stamps, good + 'x'.repeat(1024 * 1024))],
    [
      'a line edited (its checksum no longer matches)',
      () =>
        writeFile(
          stamps,
          good.replace(/ (\d+)\n$/, (_, n: string) => ` ${BigInt(n) + 1n}\n`),
        ),
    ],
    [
      'a stamp of another file state, checksum right',
      () => {
        const [[file, stamp]] = [...parseStamps(good)] as [[string, FileStamp]];
        return writeFile(stamps, serializeStamps([[file, { ...stamp, ino: stamp.ino + 1n }]]));
      },
    ],
    [
      'a directory',
      async () => {
        await rm(stamps, { force: true });
        await mkdir(path.join(stamps, 'inside'), { recursive: true });
      },
    ],
    [
      'a symlink to /dev/zero',
      async () => {
        await rm(stamps, { force: true });
        await symlink('/dev/zero', stamps);
      },
    ],
  ];
  for (const [name, damage] of variants) {
    await rm(stamps, { recursive: true, force: true });
    await writeFile(stamps, good);
    await damage();
    const index = await open();
    t.is(index.hashedSegments, 1, name);
    t.deepEqual(paths(index), ['a/one', 'b/two', 'c/three'], name);
    t.true((await stat(stamps)).isFile(), `${name}: rewritten as a file`);
    // A stamp written more than 50 ms after its fstat is not recorded (a loaded machine can do that):
    // each open that hashes writes it again, so within a few opens one is recorded and used.
    t.is((await settled(open, stamps, segment)).hashedSegments, 0, `${name}: the rewritten stamps are used`);
  }
});
