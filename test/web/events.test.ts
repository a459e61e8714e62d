import test from 'ava';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import { refChange } from '../../src/service/repository-pool.js';
import { EventHub } from '../../src/web/events.js';
import { put } from '../helpers/knowledge.js';
import { brvJson, cleanup, git, makeRepo, refTip } from '../helpers/repo.js';
import { waitFor } from '../helpers/wait.js';
import { openEvents, session, startFor } from './http.js';

async function initializedRepo(): Promise<string> {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  return repo;
}

/** Moves a ref under refs/brv/ with plumbing, as any other process could. */
async function moveRef(repo: string, name: string): Promise<void> {
  await git(repo, 'update-ref', `refs/brv/test/${name}`, (await git(repo, 'rev-parse', 'HEAD')).trim());
}

test('an external brv curate (a CLI process) arrives as a change event within seconds', async (t) => {
  const repo = await initializedRepo();
  const server = await startFor(repo);
  try {
    const stream = await openEvents(server.port, { headers: session(server) });
    t.is(stream.status, 200);
    await put(repo, 'live/topic', '<bv-rule>Live.</bv-rule>');
    const [event] = await stream.next(1, 8000);
    t.is(event!.event, 'change');
    t.is(event!.id, '1');
    const data = JSON.parse(event!.data);
    t.like(data, { id: 1, ref: 'refs/brv/heads/main', kind: 'branch', branch: 'main', to: await refTip(repo) });
    t.false('repository' in data, "the server's own path is not sent");
    t.regex(data.time, /^\d{4}-\d\d-\d\dT/);
    stream.close();
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('reconnecting with Last-Event-ID (or ?after=) replays exactly the missed events, then goes live', async (t) => {
  const repo = await initializedRepo();
  const server = await startFor(repo);
  try {
    const witness = await openEvents(server.port, { headers: session(server) });
    const first = await openEvents(server.port, { headers: session(server) });
    await moveRef(repo, 'a');
    const [seen] = await first.next(1);
    first.close();
    await moveRef(repo, 'b');
    await moveRef(repo, 'c');
    const all = await witness.next(3);
    t.deepEqual(
      all.map((e) => JSON.parse(e.data).ref),
      ['refs/brv/test/a', 'refs/brv/test/b', 'refs/brv/test/c'],
    );
    for (const how of [{ headers: { ...session(server), 'last-event-id': seen!.id! } }, { path: `/api/events?after=${seen!.id}` }]) {
      const missed = witness.events.filter((e) => Number(e.id) > Number(seen!.id));
      const back = await openEvents(server.port, { headers: session(server), ...how });
      t.deepEqual(await back.next(missed.length), missed);
      await moveRef(repo, `live-${how.path ? 'q' : 'h'}`);
      const [live] = (await witness.next(missed.length + 2)).slice(-1);
      t.deepEqual((await back.next(missed.length + 1)).at(-1), live);
      t.is(back.events.length, missed.length + 1, 'nothing twice, nothing more');
      back.close();
    }
    witness.close();
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('an id older than the buffer (or of another server run) gets event: reset first', async (t) => {
  const repo = await initializedRepo();
  const server = await startFor(repo, { eventBuffer: 2 });
  try {
    const witness = await openEvents(server.port, { headers: session(server) });
    for (const name of ['a', 'b', 'c', 'd']) await moveRef(repo, name);
    await witness.next(4);
    const old = await openEvents(server.port, { path: '/api/events?after=1', headers: session(server) });
    const [reset] = await old.next(1);
    t.is(reset!.event, 'reset');
    t.is(reset!.data, '{}');
    t.is(reset!.id, '4');
    // Exactly at the buffer's edge: the two kept events, no reset.
    const edge = await openEvents(server.port, { path: '/api/events?after=2', headers: session(server) });
    t.deepEqual(
      (await edge.next(2)).map((e) => e.id),
      ['3', '4'],
    );
    const future = await openEvents(server.port, { headers: { ...session(server), 'last-event-id': '999' } });
    t.is((await future.next(1))[0]!.event, 'reset');
    for (const s of [witness, old, edge, future]) s.close();
  } finally {
    await server.close();
    await cleanup(repo);
  }
});

test('a client that does not read is disconnected once its unsent bytes pass the limit; readers are not', async (t) => {
  // Each move at once (no coalescing): this test is about the bytes a client leaves unread.
  const hub = new EventHub({ maxClientBufferBytes: 64 * 1024, eventBuffer: 10, coalesceMs: 0 });
  const server = createServer((req, res) => hub.attach(req, res, undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const stalled = net.connect(port, '127.0.0.1');
  stalled.write(`GET /api/events HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
  stalled.pause(); // reads nothing: the kernel buffers fill, then the server's
  let stalledClosed = false;
  stalled.on('close', () => (stalledClosed = true));
  stalled.on('error', () => {});
  const reader = await openEvents(port);
  try {
    t.true(await waitFor(() => hub.clientCount === 2, 2000));
    const ref = `refs/brv/test/${'x'.repeat(900)}`;
    const change = refChange('', { ref, from: undefined, to: 'a'.repeat(40) });
    let published = 0;
    while (hub.clientCount === 2 && published < 200_000) {
      hub.publish(change);
      published++;
      if (published % 20 === 0) await new Promise((resolve) => setImmediate(resolve));
    }
    t.is(hub.clientCount, 1, `the stalled client is gone after ${published} events`);
    stalled.resume(); // reading now, it finds the end of the stream the server closed
    t.true(await waitFor(() => stalledClosed, 5000), 'its connection is closed');
    await waitFor(() => reader.events.length === published, 10_000);
    t.is(reader.events.length, published, 'the reader got every event');
  } finally {
    reader.close();
    stalled.destroy();
    hub.close();
    server.close();
  }
});

test('stopping the server ends the event streams; a ping comment keeps idle streams open', async (t) => {
  const hub = new EventHub({ pingMs: 50 });
  const server = createServer((req, res) => hub.attach(req, res, undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stream = await openEvents((server.address() as AddressInfo).port);
  t.true(await waitFor(() => stream.comments.includes(': ping'), 2000));
  hub.close();
  await stream.ended;
  server.close();

  const repo = await initializedRepo();
  const web = await startFor(repo);
  try {
    const live = await openEvents(web.port, { headers: session(web) });
    const started = Date.now();
    await web.close();
    await live.ended;
    t.true(Date.now() - started < 3000);
  } finally {
    await cleanup(repo);
  }
});

test('a burst of 500 ref moves in a second makes a bounded number of events, with every ref at its final value', async (t) => {
  const hub = new EventHub();
  const server = createServer((req, res) => hub.attach(req, res, undefined));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const stream = await openEvents((server.address() as AddressInfo).port);
  try {
    await waitFor(() => hub.clientCount === 1, 2000);
    const oid = (n: number) => n.toString(16).padStart(40, '0');
    const final = new Map<string, string | null>();
    const started = Date.now();
    // 400 moves of the brv branch, 50 review refs created, 50 created and deleted again: about one a 2 ms.
    for (let i = 1; i <= 500; i++) {
      if (i <= 400) {
        hub.publish(refChange('', { ref: 'refs/brv/heads/main', from: oid(i - 1), to: oid(i) }));
        final.set('refs/brv/heads/main', oid(i));
      } else if (i <= 450) {
        hub.publish(refChange('', { ref: `refs/brv/review/r${i}`, from: undefined, to: oid(i) }));
        final.set(`refs/brv/review/r${i}`, oid(i));
      } else {
        hub.publish(refChange('', { ref: `refs/brv/review/gone${i}`, from: undefined, to: oid(i) }));
        hub.publish(refChange('', { ref: `refs/brv/review/gone${i}`, from: oid(i), to: undefined }));
        final.set(`refs/brv/review/gone${i}`, null);
      }
      if (i % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const elapsed = Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 300));
    const events = stream.events.map((e) => JSON.parse(e.data) as { id: number; ref: string; to: string | null });
    // One event per ref per 100 ms window at most (plus the first, sent at once).
    const windows = Math.ceil(elapsed / 100) + 2;
    const main = events.filter((e) => e.ref === 'refs/brv/heads/main');
    t.true(main.length <= windows, `${main.length} events for 400 moves of one ref in ${elapsed} ms`);
    t.true(events.length <= windows + 100, `${events.length} events in all`);
    // A ref created and deleted within one window is still announced (from null to null): a client may have read it.
    t.true(events.filter((e) => e.ref.includes('gone')).every((e) => e.to === null));
    // Ids are consecutive, and replaying the stream gives every ref its final value.
    t.deepEqual(
      events.map((e) => e.id),
      events.map((_, i) => i + 1),
    );
    const replayed = new Map<string, string | null>();
    for (const e of events) replayed.set(e.ref, e.to);
    t.deepEqual(replayed, final);
    t.is(hub.latestId, events.length);
  } finally {
    stream.close();
    hub.close();
    server.close();
  }
});
