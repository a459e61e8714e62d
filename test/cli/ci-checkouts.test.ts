import test from 'ava';
import { execa } from 'execa';
import { chmod, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { plantBulk } from '../helpers/plant.js';
import { brv, brvJson, CLI, ENV, git, ROOT, tempDir } from '../helpers/repo.js';
import { succeeded } from '../helpers/knowledge.js';
import { connectMcp, textOf } from '../helpers/mcp.js';

// CI and cloud sandboxes start from a fresh shallow (`--depth 1`, as actions/checkout makes) or
// partial (`--filter=blob:none`) clone. The remote is served through file:// (so that --depth and
// --filter apply) by an upload-pack wrapper that counts the requests it answers: a partial clone's
// lazy fetches are one request each.

const TOPICS = 200;

const topic = (i: number, title = `Zebra crossing ${i}`, text = `Zebras cross road ${i} at the lights.`) =>
  `<bv-topic path="roads/r${i}" title="${title}"><bv-rule id="r1">${text}</bv-rule></bv-topic>`;

/** A bare remote (filters allowed) with three code commits and 200 topics in two knowledge commits, served through a counting upload-pack. */
async function knowledgeRemote() {
  const root = await tempDir('brv-ci-');
  const bare = path.join(root, 'remote.git');
  await git(root, 'init', '-q', '--bare', '-b', 'main', bare);
  await git(bare, 'config', 'uploadpack.allowFilter', 'true');
  const work = path.join(root, 'work');
  await git(root, 'init', '-q', '-b', 'main', work);
  for (const n of [1, 2, 3]) {
    await writeFile(path.join(work, 'app.txt'), `version ${n}\n`);
    await git(work, 'add', '.');
    await git(work, 'commit', '-q', '-m', `code ${n}`);
  }
  await git(work, 'push', '-q', bare, 'main');
  await plantBulk(
    bare,
    Array.from({ length: TOPICS }, (_, i) => [`roads/r${i}.html`, topic(i)] as [string, string]),
  );
  await plantBulk(bare, [['roads/r0.html', topic(0, 'Zebra crossing zero', 'Zebras cross road zero at the lights, edited.')]]);
  const log = path.join(root, 'requests.log');
  await writeFile(log, '');
  const uploadPack = path.join(root, 'upload-pack');
  await writeFile(uploadPack, `#!/bin/sh\necho request >> '${log}'\nexec git upload-pack "$@"\n`);
  await chmod(uploadPack, 0o755);
  const requests = async () => (await readFile(log, 'utf8')).split('\n').filter(Boolean).length;
  return { root, bare, url: `file://${bare}`, uploadPack, requests };
}

type Remote = Awaited<ReturnType<typeof knowledgeRemote>>;

/** `git clone <flags>` of the remote, its fetches (brv's and git's lazy ones) through the counting upload-pack. */
async function cloneOf(remote: Remote, name: string, ...flags: string[]): Promise<string> {
  const dir = path.join(remote.root, name);
  await git(remote.root, 'clone', '-q', ...flags, `--upload-pack=${remote.uploadPack}`, remote.url, dir);
  await git(dir, 'config', 'remote.origin.uploadpack', remote.uploadPack);
  return dir;
}

/** Objects reachable from `ref` that are not in the clone (listed without fetching them). */
async function missingObjects(repo: string, ref: string): Promise<number> {
  const { stdout } = await execa('git', ['rev-list', '--objects', '--missing=print', ref, '--'], { cwd: repo, env: ENV, extendEnv: false });
  return stdout.split('\n').filter((line) => line.startsWith('?')).length;
}

test('partial clone: brv vc fetch brings the knowledge whole in one request, and the first query fetches nothing more', async (t) => {
  const remote = await knowledgeRemote();
  const clone = await cloneOf(remote, 'partial', '--filter=blob:none');
  const before = await remote.requests();
  const fetched = succeeded(await brvJson(clone, ['vc', 'fetch']));
  t.deepEqual(fetched.createdBranches, ['main']);
  t.is((await remote.requests()) - before, 1, 'one request: no lazy fetch of .brv/format or of any topic');
  t.is(await missingObjects(clone, 'refs/brv/heads/main'), 0, 'every knowledge blob is here');

  const query = succeeded(await brvJson(clone, ['query', 'zebras crossing road zero']));
  t.is(query.matchedDocs[0].topicPath, 'roads/r0');
  t.is((await remote.requests()) - before, 1, 'the first query (a full index build of 200 topics) asked the remote for nothing');
});

test('partial clone: knowledge a plain git fetch brought without blobs is completed in one request, not one per topic', async (t) => {
  const remote = await knowledgeRemote();
  const clone = await cloneOf(remote, 'partial', '--filter=blob:none');
  succeeded(await brvJson(clone, ['vc', 'fetch'])); // also makes a plain `git fetch` bring knowledge
  succeeded(await brvJson(clone, ['query', 'zebras']));
  // A teammate adds 50 topics and changes 50; the clone's plain `git fetch` applies its filter.
  await plantBulk(remote.bare, [
    ...Array.from(
      { length: 50 },
      (_, i) =>
        [`lanes/l${i}.html`, topic(1000 + i, `Bus lane ${i}`, `Buses own lane ${i}.`).replace(`roads/r${1000 + i}`, `lanes/l${i}`)] as [
          string,
          string,
        ],
    ),
    ...Array.from(
      { length: 50 },
      (_, i) =>
        [`roads/r${i + 1}.html`, topic(i + 1, `Zebra crossing ${i + 1}`, `Zebras cross road ${i + 1}, changed.`)] as [string, string],
    ),
  ]);
  await git(clone, 'fetch', '-q', 'origin');
  t.true((await missingObjects(clone, 'refs/brv/remotes/origin/heads/main')) >= 100, 'the plain fetch left the new blobs out');

  const before = await remote.requests();
  const pulled = succeeded(await brvJson(clone, ['vc', 'pull']));
  t.is(pulled.merge.status, 'fast-forward');
  const query = succeeded(await brvJson(clone, ['query', 'buses own lane 7']));
  t.is(query.matchedDocs[0].topicPath, 'lanes/l7');
  t.is(await missingObjects(clone, 'refs/brv/heads/main'), 0);
  t.true(
    (await remote.requests()) - before <= 2,
    `pull and query asked ${(await remote.requests()) - before} times (brv's fetch, then one batch)`,
  );
});

test('partial clone, no brv command yet: a plain git fetch of the knowledge, then the first query imports it with one request', async (t) => {
  const remote = await knowledgeRemote();
  const clone = await cloneOf(remote, 'partial', '--filter=blob:none');
  await git(clone, 'fetch', '-q', 'origin', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');
  t.true((await missingObjects(clone, 'refs/brv/remotes/origin/heads/main')) >= TOPICS, 'the plain fetch left the blobs out');
  const before = await remote.requests();
  const query = succeeded(await brvJson(clone, ['query', 'zebras crossing road zero']));
  t.is(query.matchedDocs[0].topicPath, 'roads/r0');
  t.is((await remote.requests()) - before, 1, 'the format check and 200 topics, one request');
  t.is(await missingObjects(clone, 'refs/brv/heads/main^{tree}'), 0, 'every topic of the tip (history stays lazy)');
});

test('partial clone: vc diff of knowledge that arrived without blobs fetches both sides in one request', async (t) => {
  const remote = await knowledgeRemote();
  await plantBulk(
    remote.bare,
    Array.from(
      { length: 30 },
      (_, i) => [`roads/r${i + 10}.html`, topic(i + 10, `Zebra crossing ${i + 10}`, `Changed road ${i + 10}.`)] as [string, string],
    ),
  );
  const clone = await cloneOf(remote, 'partial', '--filter=blob:none');
  // As a plain `git fetch` leaves it (no blobs), taken by the local branch (a hook's fast-forward, a read-time import).
  await git(clone, 'fetch', '-q', 'origin', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');
  await git(clone, 'update-ref', 'refs/brv/heads/main', 'refs/brv/remotes/origin/heads/main');
  const before = await remote.requests();
  const diff = succeeded(await brvJson(clone, ['vc', 'diff']));
  t.is(diff.changes.length, 30);
  t.true(diff.changes.every((c: { diff?: string }) => c.diff?.includes('Changed road')));
  t.is((await remote.requests()) - before, 1, 'one request for 60 blobs');
});

test('partial clone, MCP server: brv-query over knowledge that arrived without blobs asks the remote once', async (t) => {
  const remote = await knowledgeRemote();
  const clone = await cloneOf(remote, 'partial', '--filter=blob:none');
  await git(clone, 'fetch', '-q', 'origin', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');
  await git(clone, 'update-ref', 'refs/brv/heads/main', 'refs/brv/remotes/origin/heads/main');
  const before = await remote.requests();
  const client = await connectMcp(t, clone);
  const found = await client.callTool({ name: 'brv-query', arguments: { query: 'zebras crossing road zero' } });
  t.regex(textOf(found), /roads\/r0/);
  t.is((await remote.requests()) - before, 1, '200 topics, one request');
});

test('partial clone, remote gone: a read that needs missing blobs fails at once with a typed error', async (t) => {
  const remote = await knowledgeRemote();
  const clone = await cloneOf(remote, 'partial', '--filter=blob:none');
  // The knowledge as a plain `git fetch` leaves it in a partial clone (no blobs), taken by the local
  // branch as a hook's fast-forward or a read-time import would, then the remote goes away.
  await git(clone, 'fetch', '-q', 'origin', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');
  await git(clone, 'update-ref', 'refs/brv/heads/main', 'refs/brv/remotes/origin/heads/main');
  await git(clone, 'remote', 'set-url', 'origin', path.join(remote.root, 'gone.git'));
  const run = await brvJson(clone, ['query', 'zebras'], { timeout: 20_000 });
  t.is(run.exitCode, 1, run.stderr);
  t.is(run.json?.data.error.kind, 'remote-not-found');
  t.regex(run.json?.data.error.message, /partial clone and \d+ knowledge object\(s\) brv needs are not here yet/);
  // One topic: git's own lazy fetch fails, then brv's batch names the cause.
  const read = await brvJson(clone, ['read', 'roads/r1'], { timeout: 20_000 });
  t.is(read.exitCode, 1, read.stderr);
  t.is(read.json?.data.error.kind, 'remote-not-found');
});

test('shallow clone (--depth 1): brv vc fetch brings the whole knowledge history; log, diff and query work', async (t) => {
  const remote = await knowledgeRemote();
  const clone = await cloneOf(remote, 'shallow', '--depth', '1');
  t.is((await git(clone, 'rev-parse', '--is-shallow-repository')).trim(), 'true');
  succeeded(await brvJson(clone, ['vc', 'fetch']));
  t.is((await git(clone, 'rev-list', '--count', 'refs/brv/heads/main')).trim(), '2', 'both knowledge commits, whatever the code depth');
  const log = succeeded(await brvJson(clone, ['vc', 'log']));
  t.deepEqual(
    log.entries.map((e: { changes: unknown[]; shallow?: boolean }) => [e.changes.length, e.shallow ?? false]),
    [
      [1, false],
      [TOPICS + 1, false],
    ],
  );
  const diff = succeeded(await brvJson(clone, ['vc', 'diff', '--stat']));
  t.deepEqual(
    diff.changes.map((c: { status: string; path: string }) => `${c.status} ${c.path}`),
    ['changed roads/r0'],
  );
  t.is(succeeded(await brvJson(clone, ['query', 'zebras crossing road zero'])).matchedDocs[0].topicPath, 'roads/r0');
});

test('knowledge history cut by a depth fetch: vc log marks its oldest commit, vc diff of it says why it cannot show it', async (t) => {
  const remote = await knowledgeRemote();
  const clone = await cloneOf(remote, 'shallow', '--depth', '1');
  await git(clone, 'fetch', '-q', '--depth', '1', 'origin', '+refs/brv/heads/*:refs/brv/remotes/origin/heads/*');
  succeeded(await brvJson(clone, ['vc', 'fetch']));
  const log = succeeded(await brvJson(clone, ['vc', 'log']));
  t.is(log.entries.length, 1);
  t.true(log.entries[0].shallow);
  t.deepEqual(log.entries[0].changes, [], 'not every topic listed as added by it');
  const text = await brv(clone, ['vc', 'log']);
  t.is(text.exitCode, 0);
  t.regex(text.stdout, /shallow clone: the history before this commit is not in this clone/);
  t.notRegex(text.stdout, /added roads/);
  const diff = await brvJson(clone, ['vc', 'diff']);
  t.is(diff.exitCode, 1);
  t.is(diff.json?.data.error.kind, 'not-found');
  t.regex(diff.json?.data.error.message, /shallow clone's history stops there/);
  // Knowledge still arrives and leaves: curate here, a teammate's change there, then sync.
  await plantBulk(remote.bare, [['roads/r5.html', topic(5, 'Zebra crossing five', 'Changed by a teammate.')]]);
  const html = topic(9000, 'From CI', 'Written in CI.').replace('roads/r9000', 'ci/notes');
  succeeded(await brv(clone, ['curate', '--html-file', '-', '--format', 'json'], { input: html }));
  t.is(succeeded(await brvJson(clone, ['sync'])).merge.status, 'merged');
});

/** The fenced block of README.md under `## <heading>`. */
async function readmeBlock(heading: string): Promise<string> {
  const readme = await readFile(path.join(ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(`\n## ${heading}\n`);
  if (start < 0) throw new Error(`README.md has no section "${heading}"`);
  const block = /```sh\n([\s\S]*?)```/.exec(readme.slice(start));
  if (!block) throw new Error(`README.md section "${heading}" has no sh block`);
  return block[1]!;
}

test('README "In CI and cloud agents" runs as written: fresh shallow clone, fetch, query, curate and sync as a bot', async (t) => {
  const remote = await knowledgeRemote();
  await plantBulk(remote.bare, [
    [
      'ops/deploy.html',
      '<bv-topic path="ops/deploy" title="How we deploy"><bv-rule id="r1">Deploy with blue-green switches.</bv-rule></bv-topic>',
    ],
  ]);
  const block = await readmeBlock('In CI and cloud agents');
  const lines = block.split('\n').filter((line) => line.trim() !== '');
  t.true(lines.some((line) => line.startsWith('git clone --depth 1 ')));
  // The remote's URL for GitHub's; `brv` is the built CLI.
  const script = block.replace('https://github.com/your-org/your-repo.git', remote.url);
  t.not(script, block, 'the clone URL was found and replaced');
  const bin = await tempDir('brv-bin-');
  await writeFile(path.join(bin, 'brv'), `#!/bin/sh\nexec node '${CLI}' "$@"\n`);
  await chmod(path.join(bin, 'brv'), 0o755);
  const run = await execa('sh', ['-e', '-x', '-c', script], {
    cwd: remote.root,
    env: { ...ENV, PATH: `${bin}:${ENV.PATH}` },
    extendEnv: false,
    reject: false,
  });
  t.is(run.exitCode, 0, `${run.stdout}\n${run.stderr}`);
  t.regex(run.stdout, /blue-green switches/, 'the query answered from the fetched knowledge');
  // The bot's topic reached the remote, authored by the bot, with the agent trailer.
  const tip = await git(remote.bare, 'log', '-1', '--format=%an <%ae>|%cn|%B', 'refs/brv/heads/main');
  t.regex(tip, /^ci-bot <ci-bot@example\.com>\|ci-bot\|/);
  t.regex(tip, /Brv-Agent: ci/);
  t.regex(await git(remote.bare, 'show', 'refs/brv/heads/main:ci/flaky-tests.html'), /Rerun the e2e suite/);
});
