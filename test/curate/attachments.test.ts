import test from 'ava';
import { looksSecret, mentionsOf } from '../../src/curate/attachments.js';

test('mentionsOf: @path words, not e-mail addresses; trailing punctuation dropped; each once', (t) => {
  t.deepEqual(mentionsOf('see @docs/a.md, and (@src/b.ts) or "@c.txt". mail ada@example.com @docs/a.md'), [
    'docs/a.md',
    'src/b.ts',
    'c.txt',
  ]);
  t.deepEqual(mentionsOf('@~/.ssh/id_rsa\n@../../etc/passwd'), ['~/.ssh/id_rsa', '../../etc/passwd']);
  t.deepEqual(mentionsOf('no mentions @ here'), []);
});

test('looksSecret: keys, .env files, credentials and secret folders; ordinary files are not', (t) => {
  for (const file of [
    '.env',
    '.env.local',
    'config/.env.production',
    'id_rsa',
    'id_ed25519.pub',
    'certs/server.pem',
    'tls.key',
    'aws/credentials',
    'gcp-credentials.json',
    'secrets.yaml',
    '.netrc',
    '.npmrc',
    '.git-credentials',
    'home/.ssh/config',
    '.aws/config',
  ])
    t.true(looksSecret(file), file);
  for (const file of ['README.md', 'src/env.ts', 'docs/keyboard.md', 'environment.md', 'src/auth/tokens.ts'])
    t.false(looksSecret(file), file);
});
