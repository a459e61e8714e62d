import test from 'ava';
import { mkdir, readFile, readdir, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { EmbeddingCache, identityKey, parseRecords, unitVector } from '../../src/index/embedding-cache.js';
import { cleanup, tempDir } from '../helpers/repo.js';

const blob = (n: number) => n.toString(16).padStart(40, '0');
const vector = (...xs: number[]) => unitVector(xs)!;
const identity = { provider: 'openai-compatible', model: 'emb', baseUrl: 'http://127.0.0.1:1/v1' };

test('vectors are stored per blob under brv/cache/embeddings, one file per model identity, and read back unit length', async (t) => {
  const dir = await tempDir();
  t.teardown(() => cleanup(dir));
  const cache = EmbeddingCache.forRepository(dir, identity);
  t.is(path.dirname(cache.file), path.join(dir, 'brv', 'cache', 'embeddings'));
  cache.add(new Map([[blob(1), vector(3, 4)]]));
  cache.add(new Map([[blob(2), vector(0, 2)]]));
  const again = EmbeddingCache.forRepository(dir, identity).vectors();
  t.deepEqual([...again.keys()], [blob(1), blob(2)]);
  t.deepEqual(
    [...again.get(blob(1))!].map((x) => Math.round(x * 1000) / 1000),
    [0.6, 0.8],
  );
  // Another model, another base URL: another file, nothing shared.
  t.is(EmbeddingCache.forRepository(dir, { ...identity, model: 'other' }).vectors().size, 0);
  t.is(EmbeddingCache.forRepository(dir, { ...identity, baseUrl: 'http://127.0.0.1:2/v1' }).vectors().size, 0);
  t.not(identityKey(identity), identityKey({ ...identity, provider: 'openai' }));
});

test('a torn or damaged file: the good records before the damage are kept, the next write rewrites the file clean', async (t) => {
  const dir = await tempDir();
  t.teardown(() => cleanup(dir));
  const cache = EmbeddingCache.forRepository(dir, identity);
  cache.add(new Map([[blob(1), vector(1, 0)]]));
  cache.add(new Map([[blob(2), vector(0, 1)]]));
  const bytes = await readFile(cache.file);
  // A flipped bit in the second record; then a torn tail.
  const flipped = Buffer.from(bytes);
  flipped[flipped.length - 10]! ^= 0xff;
  await writeFile(cache.file, flipped);
  const damaged = EmbeddingCache.forRepository(dir, identity);
  t.deepEqual([...damaged.vectors().keys()], [blob(1)]);
  damaged.add(new Map([[blob(3), vector(1, 1)]]));
  const parsed = parseRecords(await readFile(cache.file));
  t.false(parsed.damaged);
  t.deepEqual([...parsed.vectors.keys()].sort(), [blob(1), blob(3)]);

  await writeFile(cache.file, Buffer.concat([await readFile(cache.file), Buffer.from([20, 1, 2])]));
  const torn = EmbeddingCache.forRepository(dir, identity);
  t.is(torn.vectors().size, 2);
  t.true(parseRecords(await readFile(cache.file)).damaged);
  torn.add(new Map([[blob(4), vector(2, 1)]]));
  t.false(parseRecords(await readFile(cache.file)).damaged);
  t.is(EmbeddingCache.forRepository(dir, identity).vectors().size, 3);
});

test('garbage, a folder in the way or a deleted cache are an empty cache, never an error', async (t) => {
  const dir = await tempDir();
  t.teardown(() => cleanup(dir));
  const cache = EmbeddingCache.forRepository(dir, identity);
  await mkdir(path.dirname(cache.file), { recursive: true });
  await writeFile(cache.file, 'not a vector file at all');
  t.is(EmbeddingCache.forRepository(dir, identity).vectors().size, 0);
  await cleanup(cache.file);
  await mkdir(cache.file);
  const blocked = EmbeddingCache.forRepository(dir, identity);
  t.is(blocked.vectors().size, 0);
  blocked.add(new Map([[blob(1), vector(1, 2)]]));
  t.true((await stat(cache.file)).isFile());
  t.is(EmbeddingCache.forRepository(dir, identity).vectors().size, 1);
  await cleanup(path.join(dir, 'brv'));
  t.is(EmbeddingCache.forRepository(dir, identity).vectors().size, 0);
});

test('retain keeps only the live blobs (bounded by the tree); nothing to drop leaves the file alone', async (t) => {
  const dir = await tempDir();
  t.teardown(() => cleanup(dir));
  const cache = EmbeddingCache.forRepository(dir, identity);
  cache.add(new Map([1, 2, 3].map((n) => [blob(n), vector(n, 1)] as const)));
  t.deepEqual(cache.retain(new Set([blob(1), blob(3)])), { kept: 2, dropped: 1 });
  t.deepEqual([...EmbeddingCache.forRepository(dir, identity).vectors().keys()], [blob(1), blob(3)]);
  const before = (await stat(cache.file)).mtimeMs;
  t.deepEqual(EmbeddingCache.forRepository(dir, identity).retain(new Set([blob(1), blob(3)])), { kept: 2, dropped: 0 });
  t.is((await stat(cache.file)).mtimeMs, before);
  t.deepEqual(await readdir(path.dirname(cache.file)), [path.basename(cache.file)]);
});

test('zero and non-finite vectors are refused', (t) => {
  t.is(unitVector([0, 0]), undefined);
  t.is(unitVector([Number.NaN, 1]), undefined);
  t.is(unitVector([Number.POSITIVE_INFINITY, 1]), undefined);
});
