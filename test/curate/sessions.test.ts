import test from 'ava';
import { readdir, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { isSessionId, SESSION_TTL_MS, SessionStore } from '../../src/curate/sessions.js';
import { tempDir } from '../helpers/repo.js';

test('sessions survive a new store instance (another process) and are removed on request', async (t) => {
  const dir = await tempDir();
  const session = await new SessionStore(dir).create('intent');
  t.true(isSessionId(session.id));
  const loaded = await new SessionStore(dir).load(session.id);
  t.deepEqual(loaded, session);
  await new SessionStore(dir).remove(session.id);
  t.is(await new SessionStore(dir).load(session.id), undefined);
});

test('prune deletes expired sessions and stray temp files, and counts live ones', async (t) => {
  const dir = await tempDir();
  let now = Date.now();
  const store = new SessionStore(dir, () => now);
  const old = await store.create('old');
  await store.create('fresh');
  const stale = new Date(now - SESSION_TTL_MS - 60_000);
  await utimes(path.join(dir, `${old.id}.json`), stale, stale);
  await writeFile(path.join(dir, '.x.tmp'), '');
  await utimes(path.join(dir, '.x.tmp'), stale, stale);
  t.is(await store.prune(), 1);
  t.is((await readdir(dir)).length, 1);
  now += SESSION_TTL_MS + 1;
  const [remaining] = await readdir(dir);
  t.is(await store.load(remaining!.replace('.json', '')), undefined, 'expired on load as well');
});

test('ids that are not UUIDs never touch the file system', async (t) => {
  const dir = await tempDir();
  const store = new SessionStore(dir);
  for (const id of ['../x', '', 'a'.repeat(36), '/etc/passwd']) t.is(await store.load(id), undefined);
  await store.remove('../../etc');
  t.pass();
});
