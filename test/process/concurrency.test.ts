import test from 'ava';
import { brvJson, git, makeRepo, refTip, reply } from '../helpers/repo.js';

const WRITERS = 8;

test(`${WRITERS} processes curating at once all land, none lost`, async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const sessions = await Promise.all(Array.from({ length: WRITERS }, () => brvJson(repo, ['curate', 'parallel'], { process: true })));
  const results = await Promise.all(
    sessions.map((s, i) =>
      brvJson(repo, ['curate', '--session', s.json!.data.sessionId, '--response', reply(`team/topic_${i}`, `Topic ${i}`)], {
        process: true,
      }),
    ),
  );
  for (const result of results) t.is(result.json?.data.status, 'done', result.stdout + result.stderr);
  const files = (await git(repo, 'ls-tree', '-r', '--name-only', 'refs/brv/heads/main')).split('\n');
  t.is(files.filter((f) => f.startsWith('team/')).length, WRITERS);
  // One linear history: init + one commit per writer.
  t.is(Number(await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')), WRITERS + 1);
  t.is((await git(repo, 'fsck', '--no-dangling')).trim(), '');
});

test('writers racing for one path: exactly one adds it, the others get path-exists', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  const sessions = await Promise.all(Array.from({ length: WRITERS }, () => brvJson(repo, ['curate', 'race'], { process: true })));
  const results = await Promise.all(
    sessions.map((s, i) =>
      brvJson(repo, ['curate', '--session', s.json!.data.sessionId, '--response', reply('team/shared', `Version ${i}`)], { process: true }),
    ),
  );
  const statuses = results.map((r) => (r.json!.data.status === 'done' ? 'done' : r.json!.data.errors[0].kind));
  t.is(statuses.filter((s) => s === 'done').length, 1);
  t.is(statuses.filter((s) => s === 'path-exists').length, WRITERS - 1);
  t.is(Number(await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')), 2);
  t.truthy(await refTip(repo));
});
