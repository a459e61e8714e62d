import test from 'ava';
import { ChangeBatch, describeChange, LiveCursor, parseChangeEvent } from '../../src/web/client/live.js';

test('the first connection asks for live events; after a gap, for those after the last id seen', (t) => {
  const cursor = new LiveCursor();
  t.is(cursor.url(), '/api/events');
  t.true(cursor.accept(1));
  t.true(cursor.accept(2));
  t.is(cursor.url(), '/api/events?after=2');
});

test('replayed events already seen are dropped, new ones kept, ids only grow', (t) => {
  const cursor = new LiveCursor();
  t.true(cursor.accept(5));
  t.false(cursor.accept(5));
  t.false(cursor.accept(3));
  t.true(cursor.accept(6));
  t.is(cursor.lastId, 6);
});

test('a new connection whose first event is older than the last seen: a restarted server, its ids count from then on', (t) => {
  const cursor = new LiveCursor();
  cursor.opened();
  t.true(cursor.accept(40));
  t.true(cursor.accept(41));
  cursor.opened(); // reconnected to a new server process
  t.true(cursor.accept(1));
  t.is(cursor.url(), '/api/events?after=1');
  t.false(cursor.accept(1));
  t.true(cursor.accept(2));
});

test('reset: everything is reloaded and every following id counts as new', (t) => {
  const cursor = new LiveCursor();
  cursor.accept(900);
  cursor.reset();
  t.is(cursor.url(), '/api/events');
  t.true(cursor.accept(4));
});

test('reconnect delays double up to 30 s and start again once open', (t) => {
  const cursor = new LiveCursor();
  t.deepEqual(
    Array.from({ length: 7 }, () => cursor.failed()),
    [1000, 2000, 4000, 8000, 16000, 30000, 30000],
  );
  cursor.opened();
  t.is(cursor.failed(), 1000);
});

test('change events parse from the contract data; bad data is ignored', (t) => {
  const data = JSON.stringify({
    id: 7,
    ref: 'refs/brv/heads/main',
    from: null,
    to: 'abc',
    kind: 'branch',
    branch: 'main',
    time: '2026-01-01T00:00:00Z',
  });
  const event = parseChangeEvent(data, '7');
  t.deepEqual(event, {
    id: 7,
    ref: 'refs/brv/heads/main',
    from: null,
    to: 'abc',
    kind: 'branch',
    branch: 'main',
    time: '2026-01-01T00:00:00Z',
  });
  t.is(describeChange(event!), 'Knowledge changed on main');
  // Described by the typed fields the server sends, never by the ref's name.
  const described = (fields: object) =>
    describeChange(parseChangeEvent(JSON.stringify({ id: 1, ref: 'x', from: null, to: null, ...fields }))!);
  t.is(described({ kind: 'review', review: 'r1', action: 'opened' }), 'Review opened (r1)');
  t.is(described({ kind: 'review', review: 'r1', action: 'closed' }), 'Review decided (r1)');
  t.is(described({ kind: 'remote', remote: 'origin', branch: 'main' }), 'Fetched origin/main');
  t.is(described({ kind: 'remote', remote: 'origin', review: 'r2' }), 'Fetched review r2 from origin');
  t.is(described({ kind: 'source', source: 'docs', branch: 'main' }), 'Source docs updated');
  t.is(described({ kind: 'other' }), 'Updated x');
  t.is(parseChangeEvent('{"ref":"x"}', '12')?.id, 12);
  t.is(parseChangeEvent('not json'), null);
  t.is(parseChangeEvent('null'), null);
});

test('a burst of 500 change events is one refresh and one notice, then at most one a second while it lasts', (t) => {
  const batch = new ChangeBatch();
  const change = (id: number) => ({
    id,
    ref: 'refs/brv/heads/main',
    from: null,
    to: 'a'.repeat(40),
    kind: 'branch',
    branch: 'main',
    time: '',
  });
  let now = 1000;
  const scheduled: number[] = [];
  for (let i = 1; i <= 500; i++) {
    const delay = batch.add(change(i), now);
    if (delay !== null) scheduled.push(delay);
  }
  t.deepEqual(scheduled, [80], 'one flush scheduled for the whole burst');
  now += 80;
  t.is(batch.flush(now), '500 changes; the last: Knowledge changed on main');
  t.is(batch.flush(now), null, 'the batch is empty after a flush');
  // More while it lasts: the next flush waits for the rest of the second.
  t.is(batch.add(change(501), now + 10), 990);
  t.is(batch.add(change(502), now + 20), null);
  t.is(batch.flush(now + 1000), '2 changes; the last: Knowledge changed on main');
  // After a quiet spell, a single change is shown as itself, soon.
  t.is(batch.add(change(503), now + 5000), 80);
  t.is(batch.flush(now + 5080), describeChange(change(503)));
  t.is(batch.add(null, now + 9000), 80);
  t.is(batch.flush(now + 9080), 'Reloaded: too many changes arrived while disconnected');
});
