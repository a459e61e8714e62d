import test from 'ava';
import { chmod, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { redactCredentials } from '../../src/base/errors.js';
import { smartHttp } from '../helpers/git-servers.js';
import { put, succeeded } from '../helpers/knowledge.js';
import { brv, brvJson, git, tempDir } from '../helpers/repo.js';

const rule = (text: string) => `<bv-rule id="r1">${text}</bv-rule>`;

test('redactCredentials: passwords and http(s) tokens become ***, ssh user names and plain text stay', (t) => {
  const cases: Array<[string, string]> = [
    ["fatal: unable to access 'https://user:s3cret@host/r.git/': 403", "fatal: unable to access 'https://user:***@host/r.git/': 403"],
    ['https://ghp_T0KEN@github.com/a/b.git', 'https://***@github.com/a/b.git'],
    ['https://x-access-token:T0KEN@github.com/a', 'https://x-access-token:***@github.com/a'],
    ['HTTP://u:p@h', 'HTTP://u:***@h'],
    ['ssh://git@host/x and ssh://u:pw@h/x', 'ssh://git@host/x and ssh://u:***@h/x'],
    ['https://u:p@ss@host/x', 'https://u:***@host/x'],
    ['https://u:p@[::1]:8080/x', 'https://u:***@[::1]:8080/x'],
    ['git@github.com:team/repo.git', 'git@github.com:team/repo.git'],
    ['https://github.com/a/b and user@example.com', 'https://github.com/a/b and user@example.com'],
    ['no url at all', 'no url at all'],
  ];
  for (const [input, expected] of cases) t.is(redactCredentials(input), expected, input);
  // Linear: pathological inputs take milliseconds, not minutes.
  const started = Date.now();
  redactCredentials(`${'a'.repeat(200_000)}://`.repeat(5));
  redactCredentials('://'.repeat(100_000));
  redactCredentials(`a://${'@'.repeat(300_000)}`);
  t.true(Date.now() - started < 2000);
});

test('a token or password in a remote URL is never printed: auth failures, a refused push, clone, vc remote, status, doctor (text and JSON)', async (t) => {
  const root = await tempDir('brv-creds-');
  const bare = path.join(root, 'team.git');
  await git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  const server = await smartHttp(root, 'RIGHT-SECRET-42');
  t.teardown(() => server.close());
  const wrong = `http://alice:WRONG-SECRET-17@127.0.0.1:${server.port}/team.git`;
  const token = `http://TOKEN-SECRET-99@127.0.0.1:${server.port}/team.git`;
  const right = `http://alice:RIGHT-SECRET-42@127.0.0.1:${server.port}/team.git`;
  const secrets = /WRONG-SECRET-17|TOKEN-SECRET-99|RIGHT-SECRET-42|HOOK-SECRET-5/;

  const a = path.join(root, 'a');
  await git(root, 'init', '-q', '-b', 'main', a);
  await writeFile(path.join(a, 'README.md'), '# project\n');
  await git(a, 'add', '.');
  await git(a, 'commit', '-q', '-m', 'code');
  succeeded(await brvJson(a, ['init']));
  await put(a, 'ops/deploy', rule('Deploy on Tuesdays.'));
  succeeded(await brvJson(a, ['vc', 'remote', 'add', 'wrong', wrong]));
  succeeded(await brvJson(a, ['vc', 'remote', 'add', 'token', token]));
  const added = succeeded(await brvJson(a, ['vc', 'remote', 'add', 'origin', right]));
  t.is(added.url, `http://alice:***@127.0.0.1:${server.port}/team.git`);

  // The right credentials work (the server is real), and the URL brv shows has none.
  succeeded(await brvJson(a, ['vc', 'push', 'origin']));
  t.truthy(await git(bare, 'for-each-ref', 'refs/brv/'));

  const runs = [];
  for (const format of ['json', 'text']) {
    for (const remote of ['wrong', 'token']) {
      for (const command of ['fetch', 'push', 'pull'])
        runs.push({ what: `${command} ${remote} (${format})`, args: ['vc', command, remote] });
      runs.push({ what: `sync ${remote} (${format})`, args: ['sync', remote] });
    }
    runs.push({ what: `clone (${format})`, args: ['vc', 'clone', wrong, path.join(root, `clone-${format}`)] });
    runs.push({ what: `clone with a token (${format})`, args: ['vc', 'clone', token, path.join(root, `clone-token-${format}`)] });
    runs.push({ what: `vc remote (${format})`, args: ['vc', 'remote'] });
    runs.push({ what: `vc remote set-url (${format})`, args: ['vc', 'remote', 'set-url', 'origin', right] });
    runs.push({ what: `vc status (${format})`, args: ['vc', 'status'] });
    runs.push({ what: `doctor (${format})`, args: ['doctor'] });
    runs.push({ what: `source add (${format})`, args: ['source', 'add', wrong, '--alias', `s-${format}`] });
    runs.push({ what: `source list (${format})`, args: ['source'] });
  }
  let authFailures = 0;
  for (const run of runs) {
    const format = run.what.endsWith('(json)') ? 'json' : 'text';
    const result = await brv(a, [...run.args, '--format', format]);
    t.notRegex(result.stdout, secrets, `${run.what}: stdout`);
    t.notRegex(result.stderr, secrets, `${run.what}: stderr`);
    if (/auth-failed|refused access/.test(result.stdout + result.stderr)) authFailures++;
  }
  // The failures are the ones meant (not some other error that happens to say nothing).
  t.true(authFailures >= 10, `${authFailures} auth failures`);
  const listed = succeeded(await brvJson(a, ['vc', 'remote']));
  t.deepEqual(
    listed.remotes.map((r: { url: string }) => r.url),
    [
      `http://alice:***@127.0.0.1:${server.port}/team.git`,
      `http://***@127.0.0.1:${server.port}/team.git`,
      `http://alice:***@127.0.0.1:${server.port}/team.git`,
    ],
  );
  // git's config still has the real URL: only what brv shows is redacted.
  t.is((await git(a, 'config', 'remote.origin.url')).trim(), right);

  // A push refused by the server's policy, whose hook quotes a URL with a token: push-refused, no secret.
  await put(a, 'ops/rollback', rule('Roll back with the previous tag.'));
  await writeFile(
    path.join(bare, 'hooks', 'pre-receive'),
    '#!/bin/sh\necho "pushes are closed; see https://bot:HOOK-SECRET-5@ci.example/policy" >&2\nexit 1\n',
  );
  await chmod(path.join(bare, 'hooks', 'pre-receive'), 0o755);
  for (const format of ['json', 'text']) {
    for (const args of [
      ['vc', 'push', 'origin'],
      ['sync', 'origin'],
    ]) {
      const refused = await brv(a, [...args, '--format', format]);
      t.regex(refused.stdout + refused.stderr, /push-refused|refused the push/, `${args.join(' ')} ${format}`);
      t.regex(refused.stdout + refused.stderr, /pushes are closed/, `${args.join(' ')} ${format}: git's words are still quoted`);
      t.notRegex(refused.stdout, secrets, `${args.join(' ')} ${format}: stdout`);
      t.notRegex(refused.stderr, secrets, `${args.join(' ')} ${format}: stderr`);
    }
  }
});
