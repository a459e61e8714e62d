import test from 'ava';
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brvJson, git, makeRepo, refTip, tempDir } from '../helpers/repo.js';

async function folder(files: Record<string, string>): Promise<string> {
  const dir = await tempDir('brv-import-src-');
  for (const [name, html] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, name)), { recursive: true });
    await writeFile(path.join(dir, name), html);
  }
  return dir;
}

const topic = (p: string, text = 'A rule.') => `<bv-topic path="${p}" title="${p}"><bv-rule>${text}</bv-rule></bv-topic>`;

test('imports a ByteRover-style context tree as one commit, skipping its generated index', async (t) => {
  const repo = await makeRepo();
  const dir = await folder({
    'security/auth.html': topic('security/auth'),
    'security/cookies.html': topic('security/cookies'),
    'api/errors.html': topic('api/errors'),
    'index.html': '<bv-index project="x" generatedat="2026-01-01T00:00:00Z"></bv-index>',
    '.git/HEAD': 'ref: refs/heads/main',
    '_archived/old.html': topic('old/one'),
  });
  const run = await brvJson(repo, ['import', dir]);
  t.is(run.exitCode, 0);
  t.like(run.json!.data, { ok: true, unchanged: 0 });
  t.deepEqual(run.json!.data.added.sort(), ['api/errors', 'security/auth', 'security/cookies']);
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /^import: 3 added, 0 updated/);
  t.is(Number(await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')), 1);
  // Importing again changes nothing.
  const again = await brvJson(repo, ['import', dir]);
  t.like(again.json!.data, { ok: true, unchanged: 3, added: [], updated: [] });
  t.is(Number(await git(repo, 'rev-list', '--count', 'refs/brv/heads/main')), 1);
});

test('nothing is imported unless every file is valid; existing topics need --overwrite', async (t) => {
  const repo = await makeRepo();
  await brvJson(repo, ['import', await folder({ 'a/one.html': topic('a/one', 'Old.') })]);
  const tip = await refTip(repo);
  const bad = await brvJson(repo, [
    'import',
    await folder({ 'a/two.html': topic('a/two'), 'a/evil.html': '<bv-topic path="a/evil" title="x"><script>x</script></bv-topic>' }),
  ]);
  t.is(bad.exitCode, 1);
  t.is(bad.json!.data.problems[0].errors[0].kind, 'unsafe-html');
  const duplicate = await brvJson(repo, ['import', await folder({ 'x.html': topic('a/two'), 'y.html': topic('a/two', 'Other.') })]);
  t.is(duplicate.json!.data.problems[0].errors[0].kind, 'duplicate-path');
  const clash = await brvJson(repo, ['import', await folder({ 'a/one.html': topic('a/one', 'New.') })]);
  t.is(clash.json!.data.problems[0].errors[0].kind, 'path-exists');
  t.is(await refTip(repo), tip);
  const overwrite = await brvJson(repo, ['import', await folder({ 'a/one.html': topic('a/one', 'New.') }), '--overwrite']);
  t.deepEqual(overwrite.json!.data.updated, ['a/one']);
  t.is((await brvJson(repo, ['import', '/nonexistent/dir'])).json!.data.error.kind, 'import-read-error');
  const partial = await brvJson(repo, [
    'import',
    // ByteRover refuses a bad enum value too, so it is not repaired (a loose <p> would be).
    await folder({
      'b/ok.html': topic('b/ok'),
      'b/bad.html': '<bv-topic path="b/bad" title="x"><bv-rule severity="blocker">x</bv-rule></bv-topic>',
    }),
    '--skip-invalid',
  ]);
  t.like(partial.json!.data, { ok: true, added: ['b/ok'] });
  t.is(partial.json!.data.problems[0].errors[0].kind, 'attribute-validation');
});
