import test from 'ava';
import { brv, cleanup, git, refTip } from '../helpers/repo.js';
import { CORPUS } from './fixtures.js';
import { dreamRepo } from './setup.js';

// Topics a plain `git push` planted, never validated: brv dream reads them without trusting them.
const JWT_TEXT =
  '<bv-rule id="r1">Sign JWT access tokens with RS256 using the key pair kept in the vault.</bv-rule><bv-rule id="r2">Rotate the signing keys every 90 days.</bv-rule><bv-rule id="r3">Services verify tokens against the JWKS endpoint.</bv-rule>';
const HOSTILE: Record<string, string> = {
  // A near-duplicate of security/jwt, with a script, a handler and terminal escapes in its title.
  'security/jwt_copy': `<bv-topic path="security/jwt_copy" title="JWT \u001b]0;pwned\u0007\u001b[2J signing">${JWT_TEXT}<script>alert(1)</script><img src="x" onerror="alert(2)"></bv-topic>\n`,
  // 10,000 levels of nesting.
  'deep/nest': `<bv-topic path="deep/nest" title="Deep">${'<div>'.repeat(10_000)}JWT signing keys rotate${'</div>'.repeat(10_000)}</bv-topic>\n`,
  // Larger than any topic may be.
  'big/blob': `<bv-topic path="big/blob" title="Big"><bv-rule id="r1">${'JWT signing keys '.repeat(400_000)}</bv-rule></bv-topic>\n`,
  // Not a topic at all.
  'junk/bytes': '\u0000\u0001\u0002 not html at all \u00ff',
  // A path with a terminal escape in it.
  'weird/\u001b[31mred': `<bv-topic path="weird/red" title="Red">${JWT_TEXT}</bv-topic>\n`,
};

test('planted hostile topics (script, handlers, escapes, 10,000-deep nesting, an oversized blob, junk): dream reports, proposes nothing unsafe, prints nothing raw', async (t) => {
  const repo = await dreamRepo({ ...CORPUS, ...HOSTILE }, {});
  t.teardown(() => cleanup(repo));
  const tip = await refTip(repo);
  const text = await brv(repo, ['dream', '--max', '1000']);
  t.is(text.exitCode, 0, text.stderr);
  t.false(/[\u0000-\u0008\u000b-\u001f\u007f]/.test(text.stdout + text.stderr), 'no control character reaches the terminal');
  const json = await brv(repo, ['dream', '--max', '1000', '--dry-run', '--format', 'json']);
  t.is(json.exitCode, 0, json.stderr);
  t.is(JSON.parse(json.stdout).success, true);
  t.is(await refTip(repo), tip, 'the branch is never written by dream');
  // Whatever the first run held for review: no blob in it carries anything unsafe.
  const refs = (await git(repo, 'for-each-ref', '--format=%(refname)', 'refs/brv/review/')).split('\n').filter(Boolean);
  for (const ref of refs) {
    const changed = (await git(repo, 'diff', '--name-only', tip!, ref)).split('\n').filter(Boolean);
    for (const file of changed) {
      const shown = await git(repo, 'show', `${ref}:${file}`).catch(() => '');
      t.false(/<script|onerror=|javascript:/i.test(shown), `${ref} ${file}`);
    }
  }
});
