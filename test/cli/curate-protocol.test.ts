import test from 'ava';
import { mkdir, readFile, symlink, writeFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { brv, brvJson, curateTopic, git, makeRepo, refTip, reply, showTopic, tempDir } from '../helpers/repo.js';

async function kickoff(repo: string, intent = 'JWTs are signed with RS256') {
  const run = await brvJson(repo, ['curate', intent]);
  return run.json!.data;
}

test('kickoff returns a generate prompt and a session; continuation writes a canonical topic', async (t) => {
  const repo = await makeRepo();
  const start = await kickoff(repo);
  t.is(start.status, 'needs-llm-step');
  t.is(start.step, 'generate-html');
  t.true(start.ok);
  t.regex(start.sessionId, /^[0-9a-f-]{36}$/);
  t.regex(start.prompt, /<user-intent>\nJWTs are signed with RS256\n<\/user-intent>/);
  t.regex(start.prompt, /bv-decision/);

  const html = `<bv-topic title='JWT signing'   path="security/jwt" summary="RS256 everywhere">
<bv-rule id="r1" severity="must">Sign with RS256.</bv-rule>
      <bv-reason>Agreed in review.</bv-reason></bv-topic>`;
  const done = await brvJson(repo, [
    'curate',
    '--session',
    start.sessionId,
    '--response',
    JSON.stringify({ html, meta: { impact: 'low', reason: 'decided today', summary: 'RS256 only' } }),
  ]);
  t.is(done.exitCode, 0);
  t.true(done.json!.success);
  t.like(done.json!.data, { ok: true, status: 'done', filePath: 'security/jwt.html', topicPath: 'security/jwt', type: 'ADD' });
  t.regex(done.json!.data.commit, /^[0-9a-f]{40}$/);
  t.is(done.json!.data.commit, await refTip(repo));
  t.is(
    await showTopic(repo, 'security/jwt.html'),
    '<bv-topic path="security/jwt" title="JWT signing" summary="RS256 everywhere">\n  <bv-rule id="r1" severity="must">Sign with RS256.</bv-rule>\n  <bv-reason>Agreed in review.</bv-reason>\n</bv-topic>',
  );
  const message = await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main');
  t.regex(message, /^curate: security\/jwt — RS256 only/);
  t.regex(message, /Brv-Op: curate\nBrv-Type: ADD\nBrv-Impact: low\nBrv-Reason: decided today\nBrv-Summary: RS256 only\nBrv-Session: /);
  // The session is gone once it is done.
  const again = await brvJson(repo, ['curate', '--session', start.sessionId, '--response', reply('a/b')]);
  t.is(again.json!.data.errors[0].kind, 'unknown-session');
  // Nothing of brv is in the working tree.
  t.is(await git(repo, 'status', '--porcelain'), '');
});

test('missing-content, missing-response and invalid-flag-combination', async (t) => {
  const repo = await makeRepo();
  const empty = await brvJson(repo, ['curate', '   ']);
  t.is(empty.exitCode, 0);
  t.like(empty.json!.data, { ok: false, status: 'failed' });
  t.is(empty.json!.data.errors[0].kind, 'missing-content');
  t.is((await brvJson(repo, ['curate'])).json!.data.errors[0].kind, 'missing-content');

  const { sessionId } = await kickoff(repo);
  const missing = await brvJson(repo, ['curate', '--session', sessionId]);
  t.is(missing.json!.data.errors[0].kind, 'missing-response');

  const combos = [
    ['--overwrite'],
    ['--response', reply('a/b')],
    ['--response-file', 'x.json'],
    ['--delete-response-file'],
    ['--session', sessionId, '--response', reply('a/b'), '--response-file', 'x.json'],
    ['--session', sessionId, '--response', reply('a/b'), '--delete-response-file'],
    ['--session', sessionId, '--html-file', 'x.html'],
    ['--meta', '{}'],
    ['intent text', '--session', sessionId, '--response', reply('a/b')],
  ];
  for (const args of combos) {
    const run = await brvJson(repo, ['curate', ...args]);
    t.is(run.json?.data.errors[0].kind, 'invalid-flag-combination', args.join(' '));
  }
  // None of that wrote anything.
  t.is(await refTip(repo), undefined);
});

test('removed ByteRover flags get a migration message', async (t) => {
  const repo = await makeRepo();
  for (const flag of ['--detach', '--timeout=5', '--folder=src', '-f=README.md']) {
    const run = await brvJson(repo, ['curate', 'x', flag]);
    t.is(run.json?.data.errors[0].kind, 'removed-flag', flag);
    t.is(run.exitCode, 1);
  }
});

test('invalid-response-format and empty-response keep the session open', async (t) => {
  const repo = await makeRepo();
  const { sessionId } = await kickoff(repo);
  const bodies = [
    'not json',
    '[1,2]',
    '{"meta":{}}',
    '{"html":""}',
    '{"html":"<bv-topic path=\\"a/b\\" title=\\"t\\"></bv-topic>","meta":{"type":"DELETE"}}',
    '{"html":"x","meta":{"colour":"red"}}',
    '{"html":"x","meta":"high"}',
  ];
  for (const body of bodies) {
    const run = await brvJson(repo, ['curate', '--session', sessionId, '--response', body]);
    t.is(run.json!.data.errors[0].kind, 'invalid-response-format', body);
    t.is(run.json!.data.sessionId, sessionId);
    t.is(run.json!.data.status, 'failed');
  }
  const blank = await brvJson(repo, ['curate', '--session', sessionId, '--response', '  ']);
  t.is(blank.json!.data.errors[0].kind, 'empty-response');
  t.is(blank.json!.data.sessionId, sessionId);
  // Still usable: none of the above counted as an attempt.
  const done = await brvJson(repo, ['curate', '--session', sessionId, '--response', '```json\n' + reply('a/b') + '\n```']);
  t.is(done.json!.data.status, 'done');
});

test('unknown-session for malformed, unknown, corrupt and expired sessions', async (t) => {
  const repo = await makeRepo();
  for (const id of ['not-a-uuid', '../../etc/passwd', '123e4567-e89b-42d3-a456-426614174000']) {
    const run = await brvJson(repo, ['curate', '--session', id, '--response', reply('a/b')]);
    t.is(run.json!.data.errors[0].kind, 'unknown-session', id);
  }
  const sessions = path.join(repo, '.git', 'brv', 'sessions');
  const corrupt = await kickoff(repo);
  await writeFile(path.join(sessions, `${corrupt.sessionId}.json`), '{"id": 1');
  t.is(
    (await brvJson(repo, ['curate', '--session', corrupt.sessionId, '--response', reply('a/b')])).json!.data.errors[0].kind,
    'unknown-session',
  );
  const expired = await kickoff(repo);
  const file = path.join(sessions, `${expired.sessionId}.json`);
  const state = JSON.parse(await readFile(file, 'utf8'));
  await writeFile(file, JSON.stringify({ ...state, createdAt: Date.now() - 25 * 3600 * 1000 }));
  t.is(
    (await brvJson(repo, ['curate', '--session', expired.sessionId, '--response', reply('a/b')])).json!.data.errors[0].kind,
    'unknown-session',
  );
  t.is(await refTip(repo), undefined);
});

test('validation errors ask for a correction, and the fourth failure closes the session', async (t) => {
  const repo = await makeRepo();
  const { sessionId } = await kickoff(repo);
  const bad = JSON.stringify({ html: '<bv-topic path="../x" title="t"><bv-magic>x</bv-magic><script>alert(1)</script></bv-topic>' });
  for (let attempt = 1; attempt <= 3; attempt++) {
    const run = await brvJson(repo, ['curate', '--session', sessionId, '--response', bad]);
    const data = run.json!.data;
    t.like(data, { ok: false, status: 'needs-llm-step', step: 'correct-html', sessionId });
    const kinds = data.errors.map((e: any) => e.kind);
    t.true(kinds.includes('unsafe-path'));
    t.true(kinds.includes('unknown-element'));
    t.true(kinds.includes('unsafe-html'));
    t.regex(data.prompt, /# Errors to fix/);
    t.regex(data.prompt, /<previous-response>/);
  }
  const last = await brvJson(repo, ['curate', '--session', sessionId, '--response', bad]);
  t.like(last.json!.data, { ok: false, status: 'failed' });
  t.is(last.json!.data.errors[0].kind, 'retry-cap-exceeded');
  t.is(last.json!.data.sessionId, undefined);
  t.is((await brvJson(repo, ['curate', '--session', sessionId, '--response', reply('a/b')])).json!.data.errors[0].kind, 'unknown-session');
  t.is(await refTip(repo), undefined);
});

test('path-exists carries the existing topic; --overwrite replaces; a verbatim resubmit is a no-op', async (t) => {
  const repo = await makeRepo();
  await curateTopic(repo, reply('api/errors', 'Errors', '<bv-rule>Return problem+json.</bv-rule>'));
  const tip = await refTip(repo);
  const clash = await curateTopic(repo, reply('api/errors', 'Errors v2', '<bv-rule>Return JSON.</bv-rule>'));
  t.is(clash.status, 'needs-llm-step');
  t.is(clash.errors[0].kind, 'path-exists');
  t.regex(clash.errors[0].existingContent, /Return problem\+json/);
  t.regex(clash.prompt, /<existing-topic>/);
  t.is(await refTip(repo), tip);

  const updated = await curateTopic(repo, reply('api/errors', 'Errors v2', '<bv-rule>Return JSON.</bv-rule>'), ['--overwrite']);
  t.like(updated, { status: 'done', type: 'UPDATE' });
  t.regex((await showTopic(repo, 'api/errors.html'))!, /Return JSON/);

  // ByteRover bug 2: the stored topic (even with stamped createdat/updatedat) can be sent back as is.
  const stored = (await showTopic(repo, 'api/errors.html'))!;
  const stamped = stored.replace('<bv-topic ', '<bv-topic createdat="2026-01-01T00:00:00Z" updatedat="2026-02-01T00:00:00Z" ');
  const tipBefore = await refTip(repo);
  for (const html of [stored, stamped]) {
    const same = await curateTopic(repo, JSON.stringify({ html }));
    t.like(same, { ok: true, status: 'done', unchanged: true });
  }
  t.is(await refTip(repo), tipBefore);
});

test('related refs that point nowhere are warnings, not failures', async (t) => {
  const repo = await makeRepo();
  await curateTopic(repo, reply('security/cookies'));
  const done = await curateTopic(
    repo,
    JSON.stringify({
      html: '<bv-topic path="security/auth" title="Auth" related="@security/cookies.html, @security, @nowhere/x.html"><bv-rule>x</bv-rule></bv-topic>',
    }),
  );
  t.is(done.status, 'done');
  t.is(done.warnings.length, 1);
  t.regex(done.warnings[0], /nowhere\/x/);
});

test('response files: regular files only, deleted on request, bounded and UTF-8', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  const good = path.join(dir, 'reply.json');
  await writeFile(good, reply('ops/deploy'));
  const link = path.join(dir, 'link.json');
  await symlink(good, link);
  const folder = path.join(dir, 'folder.json');
  await mkdir(folder);

  const { sessionId } = await kickoff(repo);
  t.is(
    (await brvJson(repo, ['curate', '--session', sessionId, '--response-file', link])).json!.data.errors[0].kind,
    'response-file-not-regular',
  );
  t.is(
    (await brvJson(repo, ['curate', '--session', sessionId, '--response-file', folder])).json!.data.errors[0].kind,
    'response-file-not-regular',
  );
  t.is(
    (await brvJson(repo, ['curate', '--session', sessionId, '--response-file', path.join(dir, 'missing.json')])).json!.data.errors[0].kind,
    'response-file-read-error',
  );

  const big = path.join(dir, 'big.json');
  await writeFile(big, Buffer.alloc(50 * 1024 * 1024, 0x61));
  const tooLarge = await brvJson(repo, ['curate', '--session', sessionId, '--response-file', big, '--delete-response-file']);
  t.is(tooLarge.json!.data.errors[0].kind, 'too-large');
  t.is(tooLarge.json!.data.sessionId, sessionId);

  const latin1 = path.join(dir, 'latin1.json');
  await writeFile(latin1, Buffer.from([0x7b, 0x22, 0x68, 0xe9, 0xff, 0x22, 0x7d]));
  t.is((await brvJson(repo, ['curate', '--session', sessionId, '--response-file', latin1])).json!.data.errors[0].kind, 'invalid-encoding');

  const nul = path.join(dir, 'nul.json');
  await writeFile(nul, Buffer.concat([Buffer.from(reply('a/b')), Buffer.from([0])]));
  t.is((await brvJson(repo, ['curate', '--session', sessionId, '--response-file', nul])).json!.data.errors[0].kind, 'invalid-encoding');
  t.is(await refTip(repo), undefined);

  const done = await brvJson(repo, ['curate', '--session', sessionId, '--response-file', good, '--delete-response-file']);
  t.is(done.json!.data.status, 'done');
  t.deepEqual((await readdir(dir)).sort(), ['big.json', 'folder.json', 'latin1.json', 'link.json', 'nul.json']);
});

test('one-shot --html-file writes with meta and fails with exit 1 on bad input', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  const topic = path.join(dir, 'topic.html');
  await writeFile(
    topic,
    '<bv-topic path="db/migrations" title="Migrations"><bv-rule severity="should">Never edit an applied migration.</bv-rule></bv-topic>',
  );
  const done = await brvJson(repo, ['curate', '--html-file', topic, '--meta', '{"impact":"low","reason":"learned the hard way"}']);
  t.is(done.exitCode, 0);
  t.like(done.json!.data, { status: 'done', topicPath: 'db/migrations' });
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /Brv-Reason: learned the hard way/);

  const bad = path.join(dir, 'bad.html');
  await writeFile(bad, '<bv-topic path="db/x" title="x"><img src="x" onerror="alert(1)"></bv-topic>');
  const failed = await brvJson(repo, ['curate', '--html-file', bad]);
  t.is(failed.exitCode, 1);
  t.is(failed.json!.data.errors[0].kind, 'unsafe-html');
  t.is(
    (await brvJson(repo, ['curate', '--html-file', topic, '--meta', '{"impact":"huge"}'])).json!.data.errors[0].kind,
    'invalid-response-format',
  );
  t.is((await brvJson(repo, ['curate', '--html-file', topic, '--meta', 'nope'])).json!.data.errors[0].kind, 'invalid-response-format');
  // Text mode explains.
  const text = await brv(repo, ['curate', '--html-file', bad]);
  t.regex(text.stdout, /unsafe-html/);
});
