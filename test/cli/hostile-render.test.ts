import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { MODEL_ANSWERS, MODEL_CURATE_REPLIES, renderCorpus } from '../attack/lib/render-corpus.js';
import { diffCases, outputCases } from '../attack/lib/render-outputs.js';
import { listTopics, PAYLOADS, PLANTED_BLOBS, renderFailures, topicWithEveryAttribute } from '../helpers/hostile.js';
import { startLlmServer } from '../helpers/llm-server.js';
import { connectMcp, textOf } from '../helpers/mcp.js';
import { plantTree } from '../helpers/plant.js';
import { brv, brvJson, cleanup, ENV, git, makeRepo, tempDir } from '../helpers/repo.js';

// Issue 31: what agents and people actually read — every output path that carries rendered
// markdown — through the renderer oracle (test/helpers/render-oracle.ts). The in-process corpus and
// fuzz are test/attack/render-oracle.test.ts.

/** Every hostile blob, each findable by "zebra", keyed by its file path. */
function hostileTree(): Record<string, string> {
  const zebra = '<bv-reason>zebra</bv-reason>';
  const files: Record<string, string> = {};
  PAYLOADS.forEach(
    (payload, i) => (files[`hostile/attributes_${i}.html`] = topicWithEveryAttribute(`hostile/attributes_${i}`, payload, zebra)),
  );
  listTopics()
    .filter((_, i) => i % 9 === 0)
    .forEach((html, i) => (files[`hostile/lists_${i}.html`] = html.replace('</bv-topic>', `${zebra}</bv-topic>`)));
  PLANTED_BLOBS.forEach((html, i) => (files[`hostile/planted_${i}.html`] = html.replace('</bv-topic>', `${zebra}</bv-topic>`)));
  // A sample of issue 31's corpus (every breakout in a link and an image among them), as validated
  // topics are stored (the canonical form) or, when refused, as a push would plant them.
  const corpus = renderCorpus({ stride: 128 }).filter((vector) => vector.id.endsWith('/raw'));
  corpus.forEach((vector, i) => {
    const result = validateTopicHtml(vector.html);
    files[`corpus/v_${i}.html`] = result.ok ? result.topic.canonicalHtml : vector.html;
  });
  return files;
}

function check(t: import('ava').ExecutionContext, cases: Array<[string, string]>): void {
  const failures = renderFailures(cases.map(([where, markdown]) => [`${where}:\n${markdown.slice(0, 3000)}`, markdown] as const));
  t.deepEqual(failures.slice(0, 10), [], `${failures.length} problems in ${cases.length} outputs`);
}

test('hostile blobs planted on the brv ref render inert through read, query, MCP, vc diff and vc show', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, { 'ok/base.html': '<bv-topic path="ok/base" title="Base"><bv-reason>zebra base</bv-reason></bv-topic>' });
  const files = hostileTree();
  await plantTree(repo, files, { message: 'hostile' });
  const paths = Object.keys(files).map((file) => file.replace(/\.html$/, ''));
  t.true(paths.length >= 120, `${paths.length} topics`);
  t.log(`${paths.length} hostile topics planted`);
  const { cases, problems, changes } = await outputCases(repo, paths, {
    cliSample: 6,
    words: ['zebra', 'alert', 'script', 'javascript', 'runbook', 'img'],
    showPaths: ['corpus/v_1', 'hostile/planted_0'],
  });
  t.deepEqual(problems, []);
  t.true(changes >= paths.length, `vc diff listed ${changes} changes`);
  check(t, cases);
});

test('a hostile model: self-driven curate stores its topic inert (or refuses it), and its answers render inert', async (t) => {
  const [repo, server] = await Promise.all([makeRepo(), startLlmServer()]);
  t.teardown(() => Promise.all([server.close(), cleanup(repo)]));
  await git(repo, 'config', 'brv.llm.retries', '0');
  const env = {
    BRV_LLM_PROVIDER: 'openai-compatible',
    BRV_LLM_BASE_URL: server.url,
    BRV_LLM_MODEL: 'test-model',
    BRV_LLM_API_KEY: 'sk-test',
  };
  const cases: Array<[string, string]> = [];
  const stored: string[] = [];
  for (const [i, reply] of MODEL_CURATE_REPLIES.entries()) {
    const topicPath = (JSON.parse(reply) as { html: string }).html.match(/path="([^"]+)"/)![1]!;
    // A refusal is a correction request: the same hostile reply again, until the retry cap.
    server.fallback = { text: reply };
    const run = await brvJson(repo, ['curate', `note the runbook ${i}`, '--auto'], { env });
    if (run.json?.success && run.json.data.status === 'done') stored.push(topicPath);
    else
      t.regex(
        run.stdout + run.stderr,
        /retry-cap-exceeded|unsafe-html|invalid/,
        `curate neither stored nor refused: ${run.stdout}${run.stderr}`,
      );
  }
  t.log(`self-driven curate stored ${stored.length} of ${MODEL_CURATE_REPLIES.length} hostile replies`);
  for (const topicPath of stored) {
    const read = await brvJson(repo, ['read', topicPath]);
    cases.push([`brv read ${topicPath} (curated by the model)`, read.json?.data.content ?? '']);
    const show = await brv(repo, ['vc', 'show']);
    cases.push(...diffCases(`brv vc show (curated ${topicPath})`, show.stdout, 'text'));
  }
  if (stored.length === 0)
    await plantTree(repo, {
      'ops/runbook.html': '<bv-topic path="ops/runbook" title="Runbook"><bv-reason>the runbook zebra</bv-reason></bv-topic>',
    });
  const query = await brvJson(repo, ['query', 'zebra runbook']);
  for (const doc of query.json?.data.matchedDocs ?? []) cases.push([`brv query rendered_md: ${doc.path}`, doc.rendered_md]);

  // Answers: the model's text is untrusted too.
  const cited = stored[0] ?? 'ops/runbook';
  const answers = MODEL_ANSWERS.map((answer) => answer.replace('[ops/runbook]', `[${cited}]`));
  server.fallback = { status: 500 };
  server.reply({ text: answers[0]! }, { text: answers[1]! });
  const text = await brv(repo, ['query', 'how do I use the runbook zebra', '--answer'], { env });
  t.is(text.exitCode, 0, text.stderr);
  // The model was asked and its text is what is shown (else this checks nothing).
  t.regex(text.stdout, /31337/);
  cases.push(['brv query --answer', text.stdout]);
  const json = await brvJson(repo, ['query', 'how do I use the runbook zebra', '--answer'], { env });
  t.true(json.json?.success, json.stdout);
  t.regex(json.json?.data.answer.text ?? '', /alert/);
  cases.push(['brv query --answer --format json: answer.text', json.json?.data.answer.text ?? '']);
  const client = await connectMcp(t, repo, { ...ENV, ...env });
  for (const answer of answers) {
    server.reply({ text: answer });
    const result = await client.callTool({ name: 'brv-query', arguments: { query: 'how do I use the runbook zebra', answer: true } });
    t.falsy(result.isError, textOf(result));
    t.regex(textOf(result), /alert|31337/);
    cases.push([`MCP brv-query answer ${JSON.stringify(answer)}`, textOf(result)]);
  }
  check(t, cases);
});

test('the pages around rendered markdown (MCP brv-query, brv query and brv search text) escape titles and paths too', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await plantTree(repo, {
    'hostile/title.html': topicWithEveryAttribute('hostile/title', '<img src=x onerror=alert(1)>', '<bv-reason>zebra</bv-reason>'),
  });
  const client = await connectMcp(t, repo);
  const cases: Array<[string, string]> = [];
  const found = await client.callTool({ name: 'brv-query', arguments: { query: 'zebra' } });
  t.regex(textOf(found), /hostile\/title/);
  cases.push(['MCP brv-query', textOf(found)]);
  // A question that matches nothing is echoed back: escaped too.
  const question = 'qqqzzz <svg onload=qqq> [q](vbscript:zzz)';
  for (const name of ['brv-query', 'brv-search']) {
    const none = await client.callTool({ name, arguments: { query: question } });
    t.regex(textOf(none), /No topics matched/);
    cases.push([`MCP ${name}, no match`, textOf(none)]);
  }
  for (const command of ['query', 'search']) {
    const run = await brv(repo, [command, 'zebra']);
    t.is(run.exitCode, 0, run.stderr);
    t.regex(run.stdout, /hostile\/title/);
    cases.push([`brv ${command} text`, run.stdout]);
  }
  check(t, cases);
});

test('control characters written as references are refused at curate; what is stored re-validates as read back', async (t) => {
  const repo = await makeRepo();
  const dir = await tempDir();
  t.teardown(() => cleanup(repo, dir));
  const file = path.join(dir, 'topic.html');
  await writeFile(file, '<bv-topic path="term/esc" title="T"><bv-reason>a&#x1b;]0;PWNED&#x7;b</bv-reason></bv-topic>');
  const refused = await brvJson(repo, ['curate', '--html-file', file]);
  t.false(refused.json?.success, refused.stdout);
  t.regex(refused.stdout, /unsafe-html/);

  await writeFile(
    file,
    '<bv-topic path="term/ok" title="T&#x9;&amp;" summary="a &lt;b&gt;"><bv-reason>tab&#x9;nl&#xa;&lt;x&gt; &amp; &#x2028;</bv-reason></bv-topic>',
  );
  const written = await brvJson(repo, ['curate', '--html-file', file]);
  t.true(written.json?.success, written.stdout + written.stderr);
  const raw = await brvJson(repo, ['read', 'term/ok', '--raw']);
  const stored = raw.json?.data.content as string;
  const again = validateTopicHtml(stored);
  t.true(again.ok, stored);
  if (again.ok) t.is(again.topic.canonicalHtml, stored);
});
