import test from 'ava';
import { execa } from 'execa';
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { PAYLOADS, PLANTED_BLOBS, renderFailures, topicWithEveryAttribute } from '../helpers/hostile.js';
import { plantTree } from '../helpers/plant.js';
import { renderHtml } from '../helpers/render-oracle.js';
import { brv, brvJson, cleanup, curateTopic, ENV, git, makeRepo, reply, tempDir } from '../helpers/repo.js';

// Issue 36 point 7: `brv publish` writes the knowledge as plain Markdown to a folder or an ordinary
// branch. Every page goes through the renderer oracle (inert in every renderer) and every link in it
// must lead to a published file.

/** Every .md file under a folder (relative, `/`-separated) with its text. */
async function folderFiles(dir: string, prefix = ''): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for (const entry of await readdir(path.join(dir, prefix), { withFileTypes: true })) {
    const relative = prefix ? `${prefix}/${entry.name}` : entry.name;
    if (entry.isDirectory()) for (const [file, text] of await folderFiles(dir, relative)) files.set(file, text);
    else if (entry.name.endsWith('.md')) files.set(relative, await readFile(path.join(dir, relative), 'utf8'));
  }
  return files;
}

/** The files of a branch's tip tree with their text. */
async function branchFiles(repo: string, branch: string): Promise<Map<string, string>> {
  const names = (await git(repo, 'ls-tree', '-r', '--name-only', '-z', branch)).split('\0').filter(Boolean);
  const files = new Map<string, string>();
  for (const name of names) files.set(name, await git(repo, 'show', `${branch}:${name}`));
  return files;
}

/** Links (as a real renderer, micromark, reads them) that do not lead to a published file; raw-HTML and unsafe-URL problems. */
function problems(files: ReadonlyMap<string, string>): { broken: string[]; unsafe: string[]; links: number } {
  const entries = [...files].filter(([file]) => file.endsWith('.md'));
  const html = renderHtml(
    entries.map(([, text]) => text),
    ['micromark'],
  );
  const broken: string[] = [];
  let links = 0;
  entries.forEach(([file, text], i) => {
    for (const [, href] of html[i]![0]![1].matchAll(/href="([^"]*)"/g)) {
      // Absolute URLs and relative ones that are not pages come from a topic's own text (the oracle checks their safety).
      if (/^[a-z][a-z0-9+.-]*:/i.test(href!) || !/\.md$/.test(href!)) continue;
      links++;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), decodeURIComponent(href!.replace(/&amp;/g, '&'))));
      if (!files.has(target)) broken.push(`${file} → ${href}`);
    }
  });
  const unsafe = renderFailures(entries.map(([file, text]) => [`${file}:\n${text.slice(0, 2000)}`, text] as const));
  return { broken, unsafe, links };
}

async function knowledge(): Promise<string> {
  const repo = await makeRepo();
  const deploy =
    '<bv-topic path="ops/deploy" title="Deploys" related="@ops/db/backup.html, @api, @gone/nowhere.html">' +
    '<bv-rule severity="must">Never on <em>Fridays</em>.</bv-rule></bv-topic>';
  await curateTopic(repo, JSON.stringify({ html: deploy }));
  await curateTopic(repo, reply('ops/db/backup', 'Backups & restores'));
  await curateTopic(repo, reply('api/errors', 'Error codes'));
  await curateTopic(repo, reply('api/readme', 'Read me first'));
  return repo;
}

test('publish --to-dir: a page per topic, a README.md per folder, working relative links, incremental, a marker', async (t) => {
  const repo = await knowledge();
  const out = path.join(await tempDir('brv-pub-'), 'site');
  t.teardown(() => cleanup(repo, path.dirname(out)));
  const first = await brvJson(repo, ['publish', '--to-dir', out]);
  t.true(first.json?.success, first.stdout + first.stderr);
  t.like(first.json!.data, { target: { to: 'dir', name: out }, changed: true, topics: 4, rendered: 4, reused: 0 });
  const files = await folderFiles(out);
  t.deepEqual([...files.keys()].sort(), [
    'README.md',
    'api/README.md',
    'api/errors.md',
    'api/readme~topic.md',
    'ops/README.md',
    'ops/db/README.md',
    'ops/db/backup.md',
    'ops/deploy.md',
  ]);
  t.deepEqual(first.json!.data.written, [...files.keys()].sort());
  t.regex(files.get('ops/deploy.md')!, /^# Deploys/);
  t.regex(files.get('ops/deploy.md')!, /## Related\n\n- \[ops\/db\/backup\]\(db\/backup\.md\)\n- \[api\/\]\(\.\.\/api\/README\.md\)\n\n/);
  t.notRegex(files.get('ops/deploy.md')!, /\]\([^)]*gone/);
  t.regex(files.get('README.md')!, /\[ops\/\]\(ops\/README\.md\)/);
  t.regex(
    files.get('ops/db/README.md')!,
    /\[Backups &amp; restores\]\(backup\.md\) \(backup\)|\[Backups & restores\]\(backup\.md\) \(backup\)/,
  );
  const checked = problems(files);
  t.deepEqual(checked.broken, []);
  t.deepEqual(checked.unsafe, []);
  t.true(checked.links >= 12, `${checked.links} links`);
  t.true((await lstat(path.join(out, '.brv-publish.json'))).isFile());

  // Nothing changed: nothing is written.
  const again = await brvJson(repo, ['publish', '--to-dir', out]);
  t.like(again.json!.data, { changed: false, rendered: 0, reused: 4, written: [], removed: [] });

  // One topic added, one removed: only their pages and the indexes that list them change.
  await curateTopic(repo, reply('ops/oncall', 'On call'));
  t.true((await brvJson(repo, ['rm', 'api/errors'])).json?.success);
  const third = await brvJson(repo, ['publish', '--to-dir', out]);
  t.like(third.json!.data, { changed: true, topics: 4, rendered: 1, reused: 3 });
  t.deepEqual(third.json!.data.written, ['api/README.md', 'ops/README.md', 'ops/oncall.md']);
  t.deepEqual(third.json!.data.removed, ['api/errors.md']);
  const after = await folderFiles(out);
  t.false(after.has('api/errors.md'));
  t.deepEqual(problems(after).broken, []);

  // A folder publish did not write is refused, unless --force.
  const foreign = await tempDir('brv-foreign-');
  await writeFile(path.join(foreign, 'notes.txt'), 'mine\n');
  const refused = await brvJson(repo, ['publish', '--to-dir', foreign]);
  t.is(refused.json!.data.error.kind, 'publish-target-not-ours');
  t.deepEqual(await readdir(foreign), ['notes.txt']);
  t.true((await brvJson(repo, ['publish', '--to-dir', foreign, '--force'])).json?.success);
  t.is(await readFile(path.join(foreign, 'notes.txt'), 'utf8'), 'mine\n');
  await cleanup(foreign);
});

test('publish --to-branch: a plumbing commit, deterministic, incremental, never touching HEAD, the index, the work tree or other branches', async (t) => {
  const repo = await knowledge();
  t.teardown(() => cleanup(repo));
  await git(repo, 'branch', 'feature');
  await writeFile(path.join(repo, 'dirty.txt'), 'untracked\n');
  await writeFile(path.join(repo, 'README.md'), '# changed in the work tree\n');
  const before = {
    head: await git(repo, 'symbolic-ref', 'HEAD'),
    main: await git(repo, 'rev-parse', 'main'),
    feature: await git(repo, 'rev-parse', 'feature'),
    status: await git(repo, 'status', '--porcelain'),
    index: await git(repo, 'ls-files', '-s'),
  };
  const first = await brvJson(repo, ['publish', '--to-branch', 'brv-pages']);
  t.true(first.json?.success, first.stdout + first.stderr);
  const commit = first.json!.data.commit as string;
  t.is(await git(repo, 'rev-parse', 'refs/heads/brv-pages'), commit);
  t.like(first.json!.data, { target: { to: 'branch', name: 'brv-pages' }, changed: true, topics: 4, rendered: 4 });
  t.deepEqual(
    {
      head: await git(repo, 'symbolic-ref', 'HEAD'),
      main: await git(repo, 'rev-parse', 'main'),
      feature: await git(repo, 'rev-parse', 'feature'),
      status: await git(repo, 'status', '--porcelain'),
      index: await git(repo, 'ls-files', '-s'),
    },
    before,
  );
  const files = await branchFiles(repo, 'brv-pages');
  t.true(files.has('ops/deploy.md') && files.has('README.md'));
  t.deepEqual(problems(files).broken, []);
  t.deepEqual(problems(files).unsafe, []);
  // Identity and dates are fixed from the knowledge commit: the commit is a function of the knowledge.
  const from = first.json!.data.from as string;
  t.is(
    await git(repo, 'log', '-1', '--format=%an <%ae> %at|%cn %ct', commit),
    `brv publish <publish@brv.invalid> ${await git(repo, 'log', '-1', '--format=%ct', from)}|brv publish ${await git(repo, 'log', '-1', '--format=%ct', from)}`,
  );
  t.regex(await git(repo, 'log', '-1', '--format=%B', commit), new RegExp(`Brv-Published-From: ${from}`));

  // Publishing again commits nothing: the same commit id.
  const again = await brvJson(repo, ['publish', '--to-branch', 'brv-pages']);
  t.like(again.json!.data, { commit, changed: false, written: [], rendered: 0 });
  t.is(await git(repo, 'rev-parse', 'brv-pages'), commit);

  // Another repository with the same knowledge tree (same commit) publishes the same commit id.
  const twin = await makeRepo();
  t.teardown(() => cleanup(twin));
  await git(repo, 'push', '-q', twin, 'refs/brv/heads/main:refs/brv/heads/main');
  const twinRun = await brvJson(twin, ['publish', '--to-branch', 'brv-pages']);
  t.is(twinRun.json!.data.commit, commit);

  // A change: one page rendered again, one new commit on top.
  await curateTopic(repo, reply('api/errors', 'Error codes, v2', '<bv-rule>Use problem+json.</bv-rule>'), ['--overwrite']);
  const third = await brvJson(repo, ['publish', '--to-branch', 'brv-pages']);
  t.like(third.json!.data, { changed: true, rendered: 1, reused: 3 });
  t.deepEqual(third.json!.data.written, ['api/README.md', 'api/errors.md']);
  t.is(await git(repo, 'rev-parse', `${third.json!.data.commit}^`), commit);
  // Unchanged pages keep their blobs.
  t.is(await git(repo, 'rev-parse', 'brv-pages:ops/deploy.md'), await git(repo, 'rev-parse', `${commit}:ops/deploy.md`));

  // Branches publish did not write, and the checked-out branch, are refused; --force publishes on top of the former.
  t.is((await brvJson(repo, ['publish', '--to-branch', 'feature'])).json!.data.error.kind, 'publish-target-not-ours');
  t.is(await git(repo, 'rev-parse', 'feature'), before.feature);
  t.is((await brvJson(repo, ['publish', '--to-branch', 'main', '--force'])).json!.data.error.kind, 'publish-branch-checked-out');
  t.is((await brvJson(repo, ['publish', '--to-branch', 'bad..name'])).json!.data.error.kind, 'invalid-publish-branch');
  const forced = await brvJson(repo, ['publish', '--to-branch', 'feature', '--force']);
  t.is(await git(repo, 'rev-parse', 'feature^'), before.feature);
  t.is(forced.json!.data.commit, await git(repo, 'rev-parse', 'feature'));
  t.is(await git(repo, 'symbolic-ref', 'HEAD'), before.head);
  t.is(await git(repo, 'status', '--porcelain'), before.status);
});

test('a hostile knowledge tree planted with plumbing publishes inert pages that stay inside the folder and link only to published files', async (t) => {
  const repo = await makeRepo();
  const out = path.join(await tempDir('brv-pub-'), 'site');
  t.teardown(() => cleanup(repo, path.dirname(out)));
  const files: Record<string, string> = {
    'ok/base.html': '<bv-topic path="ok/base" title="Base"><bv-reason>fine</bv-reason></bv-topic>',
    'ok/escape.html':
      '<bv-topic path="../../../etc/passwd" title="&lt;script&gt;alert(1)&lt;/script&gt;" related="@../../etc/passwd, @/etc/passwd.html, @ok/base, javascript:alert(1), @ok/../../x, @ok/base.html"><bv-reason><a href="javascript:alert(1)">x</a></bv-reason></bv-topic>',
    'ok/huge.html': `<bv-topic path="ok/huge" title="H">${'x'.repeat(3 * 1024 * 1024)}</bv-topic>`,
    'ok/notatopic.html': 'just bytes <script>alert(1)</script>',
    'ok/README.html': '<bv-topic path="ok/README" title="[x](javascript:alert(1))"><bv-reason>r</bv-reason></bv-topic>',
    'notes.md': '<script>alert(1)</script>',
  };
  PAYLOADS.forEach((payload, i) => (files[`hostile/attributes_${i}.html`] = topicWithEveryAttribute(`hostile/attributes_${i}`, payload)));
  PLANTED_BLOBS.forEach((html, i) => (files[`hostile/planted_${i}.html`] = html));
  await plantTree(repo, files);
  const run = await brvJson(repo, ['publish', '--to-dir', out]);
  t.true(run.json?.success, run.stdout + run.stderr);
  t.is(run.json!.data.topics, Object.keys(files).length - 1);
  const published = await folderFiles(out);
  t.true(published.has('ok/base.md') && published.has('ok/huge.md') && published.has('ok/README~topic.md'));
  t.false(published.has('notes.md'));
  // Nothing outside: every file is under the folder (readdir found them all there), and the escape topic's page links only to ok/base.
  t.regex(published.get('ok/escape.md')!, /## Related\n\n- \[ok\/base\]\(base\.md\)\n\n---/);
  const checked = problems(published);
  t.deepEqual(checked.broken, []);
  t.deepEqual(checked.unsafe.slice(0, 10), [], `${checked.unsafe.length} problems`);
  t.regex(published.get('ok/huge.md')!, /cannot be shown as a topic/);

  const branch = await brvJson(repo, ['publish', '--to-branch', 'pages']);
  t.true(branch.json?.success, branch.stdout + branch.stderr);
  const onBranch = await branchFiles(repo, 'pages');
  t.deepEqual([...onBranch.keys()].sort(), [...published.keys()].sort());
  for (const [file, text] of onBranch) t.is(text, published.get(file)!.replace(/\n$/, ''), file);
});

test('a tampered marker and symbolic links in the folder never lead publish outside it', async (t) => {
  const repo = await knowledge();
  const root = await tempDir('brv-pub-');
  t.teardown(() => cleanup(repo, root));
  const [out, outside] = [path.join(root, 'site'), path.join(root, 'outside')];
  await mkdir(path.join(outside, 'deep'), { recursive: true });
  for (const file of ['victim.md', 'deep/victim.md', 'README.md']) await writeFile(path.join(outside, file), 'keep\n');
  t.true((await brvJson(repo, ['publish', '--to-dir', out])).json?.success);
  // The marker now claims files behind a symbolic link and outside the folder; the index is a link out.
  const marker = JSON.parse(await readFile(path.join(out, '.brv-publish.json'), 'utf8'));
  Object.assign(marker.files, { 'evil/victim.md': 'x', 'evil/deep/victim.md': 'x', '../outside/victim.md': 'x', '/etc/passwd.md': 'x' });
  await writeFile(path.join(out, '.brv-publish.json'), JSON.stringify(marker));
  await symlink(outside, path.join(out, 'evil'));
  await rm(path.join(out, 'README.md'));
  await symlink(path.join(outside, 'README.md'), path.join(out, 'README.md'));
  const run = await brvJson(repo, ['publish', '--to-dir', out]);
  t.true(run.json?.success, run.stdout + run.stderr);
  for (const file of ['victim.md', 'deep/victim.md', 'README.md']) t.is(await readFile(path.join(outside, file), 'utf8'), 'keep\n', file);
  t.true((await lstat(path.join(out, 'README.md'))).isFile());
  t.regex(await readFile(path.join(out, 'README.md'), 'utf8'), /^# Knowledge/);
  // A folder of topics that is a symbolic link is refused, not written through.
  await rm(path.join(out, 'ops'), { recursive: true });
  await symlink(outside, path.join(out, 'ops'));
  t.is((await brvJson(repo, ['publish', '--to-dir', out])).json!.data.error.kind, 'publish-target-invalid');
  t.deepEqual((await readdir(outside)).sort(), ['README.md', 'deep', 'victim.md']);
});

test('--source publishes a knowledge source, --at an earlier commit; text output names what was written', async (t) => {
  const [repo, other] = await Promise.all([makeRepo(), knowledge()]);
  const out = await tempDir('brv-pub-');
  t.teardown(() => cleanup(repo, other, out));
  await curateTopic(repo, reply('local/only', 'Local'));
  t.true((await brvJson(repo, ['source', 'add', other, '--alias', 'team'])).json?.success);
  const fromSource = await brvJson(repo, ['publish', '--source', 'team', '--to-branch', 'team-pages']);
  t.like(fromSource.json!.data, { topics: 4 });
  t.true((await branchFiles(repo, 'team-pages')).has('ops/deploy.md'));
  t.false((await branchFiles(repo, 'team-pages')).has('local/only.md'));
  await curateTopic(repo, reply('local/later', 'Later'));
  const text = await brv(repo, ['publish', '--at', 'main~1', '--to-dir', path.join(out, 'old')]);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /^Published 1 topic of [0-9a-f]{12} to .*old: 3 files written, 0 removed; 1 rendered, 0 unchanged\.$/);
  t.deepEqual([...(await folderFiles(path.join(out, 'old'))).keys()].sort(), ['README.md', 'local/README.md', 'local/only.md']);
  const none = await brv(repo, ['publish', '--at', 'main~1', '--to-dir', path.join(out, 'old')]);
  t.regex(none.stdout, /already shows the 1 topic of [0-9a-f]{12}; nothing was written\.$/);
  t.is((await brvJson(repo, ['publish'])).json!.data.error.kind, 'usage');
});

test('a teammate sees the published branch after a plain git fetch', async (t) => {
  const [repo, remote] = await Promise.all([knowledge(), makeRepo({ bare: true })]);
  const teammate = path.join(await tempDir('brv-mate-'), 'clone');
  t.teardown(() => cleanup(repo, remote, path.dirname(teammate)));
  await git(repo, 'remote', 'add', 'origin', remote);
  await git(repo, 'push', '-q', 'origin', 'main');
  await git(path.dirname(teammate), 'clone', '-q', remote, teammate);
  const run = await brvJson(repo, ['publish', '--to-branch', 'brv-pages']);
  await git(repo, 'push', '-q', 'origin', 'brv-pages');
  await execa('git', ['fetch', '-q'], { cwd: teammate, env: ENV, extendEnv: false });
  t.is(await git(teammate, 'rev-parse', 'origin/brv-pages'), run.json!.data.commit);
  t.regex(await git(teammate, 'show', 'origin/brv-pages:ops/deploy.md'), /^# Deploys/);
  t.regex(await git(teammate, 'show', 'origin/brv-pages:README.md'), /\[Deploys\]\(ops\/deploy\.md\)|\[ops\/\]\(ops\/README\.md\)/);
});
