import test from 'ava';
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { lutimes, mkdir, readFile, rm, symlink, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { acquireLock, liveHolder, moveLock, newLockToken, releaseLock, STALE_LOCK_MS } from '../../src/index/maintenance-lock.js';
import { tempDir } from '../helpers/repo.js';

const me = (token = newLockToken(), since = Date.now()) => ({ pid: process.pid, token, since });

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = execa('node', ['-e', '0']);
  await child;
  return child.pid!;
}

test('one holder at a time; only the token releases or moves it', async (t) => {
  const file = path.join(await tempDir(), 'index', 'maintenance.lock');
  const first = me();
  t.true(await acquireLock(file, first));
  t.false(await acquireLock(file, me()), 'a live lock is not taken');
  t.is((await liveHolder(file))?.token, first.token);
  await releaseLock(file, 'someone-else');
  t.true(existsSync(file));
  t.false(await moveLock(file, 'someone-else', 1));
  t.true(await moveLock(file, first.token, process.pid));
  await releaseLock(file, first.token);
  t.false(existsSync(file));
  t.is(await liveHolder(file), undefined);
});

test('a stale lock is taken over: its process is gone, it is too old, or it is unreadable and not new', async (t) => {
  const dir = await tempDir();
  const file = path.join(dir, 'maintenance.lock');
  await writeFile(file, JSON.stringify({ pid: await deadPid(), token: 'killed', since: Date.now() }));
  t.is(await liveHolder(file), undefined);
  t.true(await acquireLock(file, me('mine')));
  t.is(JSON.parse(await readFile(file, 'utf8')).token, 'mine');

  await writeFile(file, JSON.stringify({ pid: process.pid, token: 'old', since: Date.now() - STALE_LOCK_MS - 1000 }));
  t.true(await acquireLock(file, me('mine-again')), 'a live pid, but held for longer than any run takes (pids are reused)');

  await writeFile(file, 'garbage');
  t.false(await acquireLock(file, me()), 'an unreadable lock may be one being written right now');
  const old = new Date(Date.now() - 60_000);
  await utimes(file, old, old);
  t.true(await acquireLock(file, me()));
});

test('of many takers of one stale lock, one gets it', async (t) => {
  const file = path.join(await tempDir(), 'maintenance.lock');
  await writeFile(file, JSON.stringify({ pid: await deadPid(), token: 'killed', since: Date.now() }));
  const won = await Promise.all(Array.from({ length: 8 }, () => acquireLock(file, me())));
  t.is(won.filter(Boolean).length, 1);
});

test('a directory, a link or a FIFO in the place of the lock is a stale lock: taken over, and the target of a link is left alone', async (t) => {
  const dir = await tempDir();
  const file = path.join(dir, 'maintenance.lock');
  await mkdir(path.join(file, 'sub'), { recursive: true });
  t.true(await acquireLock(file, me('over-a-directory')));
  t.is(JSON.parse(await readFile(file, 'utf8')).token, 'over-a-directory');

  const target = path.join(dir, 'target');
  await writeFile(target, 'not a lock');
  await rm(file);
  await symlink(target, file);
  const old = new Date(Date.now() - 60_000);
  await lutimes(file, old, old);
  t.true(await acquireLock(file, me('over-a-link')));
  t.is(await readFile(target, 'utf8'), 'not a lock');

  await rm(file);
  await execa('mkfifo', [file]);
  await utimes(file, old, old);
  t.true(await acquireLock(file, me('over-a-fifo')));
  t.is(JSON.parse(await readFile(file, 'utf8')).token, 'over-a-fifo');
});
