import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import test from 'ava';
import { put } from '../helpers/knowledge.js';
import { brv, brvJson, CLI, git, makeRepo, refTip, showTopic, tempDir } from '../helpers/repo.js';

/** A fake editor: a shell script that gets the file to edit as "$1". */
async function editor(body: string): Promise<string> {
  const file = path.join(await tempDir('brv-editor-'), 'editor.sh');
  await writeFile(file, `#!/bin/sh\nset -e\n${body}\n`);
  await chmod(file, 0o755);
  return file;
}

async function repoWithTopic(): Promise<string> {
  const repo = await makeRepo();
  await put(repo, 'ops/deploy', '<bv-rule id="r1">Do the thing.</bv-rule>', { title: 'Deploys' });
  return repo;
}

test('brv edit opens $EDITOR on the stored HTML and commits the edit with Brv-Op: edit', async (t) => {
  const repo = await repoWithTopic();
  const seen = path.join(await tempDir(), 'seen.html');
  const script = await editor(`cp "$1" "${seen}"\nsed -i 's/Do the thing\\./Do it twice./' "$1"`);
  const before = await refTip(repo);
  const run = await brvJson(repo, ['edit', 'ops/deploy'], { env: { EDITOR: script } });
  t.true(run.json?.success, run.stdout + run.stderr);
  t.like(run.json!.data, { ok: true, topicPath: 'ops/deploy', unchanged: false });
  t.is((await readFile(seen, 'utf8')).trimEnd(), (await showTopic(repo, 'ops/deploy.html', before))!, 'the editor got the stored HTML');
  t.regex((await showTopic(repo, 'ops/deploy.html'))!, /Do it twice\./);
  t.regex(await git(repo, 'log', '-1', '--format=%B', 'refs/brv/heads/main'), /^Brv-Op: edit$/m);
  t.is(await git(repo, 'rev-parse', 'refs/brv/heads/main^'), before!);

  // $VISUAL wins over $EDITOR; text output.
  const visual = await editor(`sed -i 's/Do it twice\\./Do it thrice./' "$1"`);
  const text = await brv(repo, ['edit', 'ops/deploy.html'], { env: { VISUAL: visual, EDITOR: '/bin/false' } });
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /^Saved ops\/deploy \(commit [0-9a-f]+\)\./);
});

test('brv edit: unchanged text (or a no-op reformat) commits nothing', async (t) => {
  const repo = await repoWithTopic();
  const before = await refTip(repo);
  const untouched = await brv(repo, ['edit', 'ops/deploy'], { env: { EDITOR: 'true' } });
  t.is(untouched.exitCode, 0, untouched.stderr);
  t.regex(untouched.stdout, /^Unchanged: ops\/deploy/);
  // Whitespace the canonical form removes: valid, but the same topic.
  const reformat = await editor(`sed -i 's/<bv-rule/\\n   <bv-rule/' "$1"`);
  const run = await brvJson(repo, ['edit', 'ops/deploy'], { env: { EDITOR: reformat } });
  t.like(run.json?.data, { ok: true, unchanged: true, commit: undefined });
  t.is(await refTip(repo), before);
});

test('brv edit reopens an invalid topic with the errors in a comment, stripped before validation', async (t) => {
  const repo = await repoWithTopic();
  const dir = await tempDir();
  // Round 1 breaks the topic; round 2 records what it was shown and fixes it, leaving the comment in place.
  const script = await editor(
    [
      `if [ ! -e "${dir}/round1" ]; then touch "${dir}/round1"; sed -i 's/bv-rule/bv-nonsense/g' "$1"; exit 0; fi`,
      `cp "$1" "${dir}/shown.html"`,
      `sed -i 's/bv-nonsense/bv-rule/g; s/Do the thing\\./Fixed./' "$1"`,
    ].join('\n'),
  );
  const run = await brvJson(repo, ['edit', 'ops/deploy'], { env: { EDITOR: script } });
  t.true(run.json?.success, run.stdout + run.stderr);
  const shown = await readFile(path.join(dir, 'shown.html'), 'utf8');
  t.regex(shown, /^<!-- brv edit: the topic was NOT saved/);
  // Where the problem is, in the file as the editor shows it (the comment included).
  const located = /- line (\d+):(\d+): unknown-element: .*bv-nonsense/.exec(shown);
  t.truthy(located, shown);
  t.is(
    shown
      .split('\n')
      [Number(located![1]) - 1]!.slice(Number(located![2]) - 1)
      .slice(0, 12),
    '<bv-nonsense',
  );
  t.regex(shown, /-->\n<bv-topic/, 'the invalid text follows the comment');
  const stored = (await showTopic(repo, 'ops/deploy.html'))!;
  t.regex(stored, /Fixed\./);
  t.notRegex(stored, /brv edit/, 'the comment is not stored');
});

test('brv edit gives up when invalid text is saved again unchanged, and keeps the text in a named file', async (t) => {
  const repo = await repoWithTopic();
  const before = await refTip(repo);
  const script = await editor(`grep -q 'brv edit:' "$1" || sed -i 's/bv-rule/bv-nonsense/g' "$1"`);
  const run = await brvJson(repo, ['edit', 'ops/deploy'], { env: { EDITOR: script } });
  t.is(run.exitCode, 1);
  t.is(run.json?.data.error.kind, 'edit-aborted');
  const kept = /Your text is in (\S+\.html)\./.exec(run.json!.data.error.message)?.[1];
  t.truthy(kept, run.json!.data.error.message);
  t.regex(await readFile(kept!, 'utf8'), /bv-nonsense/);
  t.is(await refTip(repo), before);
});

test('brv edit writes by compare-and-swap: a change made meanwhile refuses the save and keeps the text', async (t) => {
  const repo = await repoWithTopic();
  const other = path.join(await tempDir(), 'other.html');
  await writeFile(other, '<bv-topic path="ops/deploy" title="Deploys"><bv-rule id="r1">Changed meanwhile.</bv-rule></bv-topic>');
  // While the person edits, another writer replaces the topic.
  const script = await editor(
    `node "${CLI}" curate --html-file "${other}" --overwrite >/dev/null\nsed -i 's/Do the thing\\./My edit./' "$1"`,
  );
  const run = await brvJson(repo, ['edit', 'ops/deploy'], { env: { EDITOR: script } });
  t.is(run.exitCode, 1, run.stdout + run.stderr);
  t.is(run.json?.data.error.kind, 'edit-conflict');
  const message: string = run.json!.data.error.message;
  t.regex(message, /changed by someone else/);
  const kept = /Your text is in (\S+\.html):/.exec(message)?.[1];
  t.truthy(kept, message);
  t.regex(await readFile(kept!, 'utf8'), /My edit\./);
  t.regex((await showTopic(repo, 'ops/deploy.html'))!, /Changed meanwhile\./, 'the other change stays');
});

test('brv edit refuses cleanly without a terminal unless an editor is named', async (t) => {
  const repo = await repoWithTopic();
  const run = await brvJson(repo, ['edit', 'ops/deploy'], { unset: ['EDITOR', 'VISUAL'] });
  t.is(run.exitCode, 1);
  t.is(run.json?.data.error.kind, 'no-terminal');
  const text = await brv(repo, ['edit', 'ops/deploy'], { unset: ['EDITOR', 'VISUAL'] });
  t.regex(text.stderr, /\$EDITOR/);
  t.is((await brvJson(repo, ['edit', 'ops/missing'], { env: { EDITOR: 'true' } })).json?.data.error.kind, 'not-found');
  const failing = await brvJson(repo, ['edit', 'ops/deploy'], { env: { EDITOR: 'false' } });
  t.is(failing.json?.data.error.kind, 'editor-failed');
});

test('an editor that leaves a huge file (3 GB sparse: more than Node can read into a string) is refused as too-large before it is read; nothing is written', async (t) => {
  const repo = await repoWithTopic();
  const before = await refTip(repo);
  const script = await editor('truncate -s 3G "$1"');
  const run = await brvJson(repo, ['edit', 'ops/deploy'], { env: { EDITOR: script } });
  t.is(run.exitCode, 1, run.stdout + run.stderr);
  t.is(run.json?.data.error.kind, 'too-large');
  t.is(await refTip(repo), before);
});
