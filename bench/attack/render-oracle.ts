/**
 * bench/attack/render-oracle: issue 31's renderer-oracle campaign at full size. Every hostile vector
 * of the corpus (every slot × payload × encoding), the planted blobs and a long seeded fuzz go
 * through the full and the fast extraction paths in process; then a planted repository of corpus
 * topics goes through every output path (read, query, MCP, vc diff/show) with the real CLI; then a
 * hostile model through self-driven curate and answers. Every markdown is rendered by every
 * renderer of test/helpers/render-oracle.ts (micromark with GFM tables included) and must hold
 * nothing live. Usage:
 *   node --import tsx bench/attack/render-oracle.ts [--encodings 3] [--seeds 10] [--per-seed 500] [--seed 31] [--outputs 600]
 * (--encodings 9: every encoding, ~49,000 vectors). Needs a build (dist/). Writes
 * bench/results/attack-render-oracle.json; exits 1 when anything renders live.
 */
import { startLlmServer } from '../../test/helpers/llm-server.js';
import { plantTree } from '../../test/helpers/plant.js';
import { RENDERERS, renderOracle, type Finding } from '../../test/helpers/render-oracle.js';
import { brv, brvJson, cleanup, ENV, git, makeRepo } from '../../test/helpers/repo.js';
import { validateTopicHtml } from '../../src/topic/validate.js';
import { describeFinding, renderCampaign, type RenderCampaign } from '../../test/attack/lib/render-check.js';
import { fuzzedTopics, MODEL_ANSWERS, MODEL_CURATE_REPLIES, plantedCorpus, renderCorpus } from '../../test/attack/lib/render-corpus.js';
import { diffCases, mcpClient, outputCases, type OutputCase } from '../../test/attack/lib/render-outputs.js';
import { argValue, writeReport } from '../lib/report.js';

const encodings = Number(argValue('encodings', '3'));
const seeds = Number(argValue('seeds', '10'));
const perSeed = Number(argValue('per-seed', '500'));
const firstSeed = Number(argValue('seed', '31'));
const outputTopics = Number(argValue('outputs', '600'));
const oracle = { renderers: RENDERERS };

function summary(campaign: RenderCampaign) {
  const { findings, ...rest } = campaign;
  const byKind: Record<string, number> = {};
  for (const finding of findings) byKind[`${finding.renderer} ${finding.kind}`] = (byKind[`${finding.renderer} ${finding.kind}`] ?? 0) + 1;
  const byPath: Record<string, number> = {};
  for (const finding of findings) byPath[finding.path] = (byPath[finding.path] ?? 0) + 1;
  return { ...rest, findings: findings.length, byKind, byPath, firstFindings: findings.slice(0, 20).map(describeFinding) };
}

function log(line: string): void {
  process.stdout.write(`${line}\n`);
}

// 1. The corpus, in process.
const corpus = [...renderCorpus({ encodings }), ...plantedCorpus()];
log(`corpus: ${corpus.length} vectors (encodings ${encodings})…`);
const corpusRun = renderCampaign(corpus, oracle);
log(
  `corpus: ${corpusRun.accepted} accepted, ${corpusRun.refused} refused, fast path ${corpusRun.fastAnswered}; ${corpusRun.liveVectors} of ${corpusRun.vectors} render live; per renderer ${JSON.stringify(corpusRun.liveByRenderer)}, of which a dangerous element, handler or URL ${JSON.stringify(corpusRun.dangerousByRenderer)} (${corpusRun.ms.paths} + ${corpusRun.ms.oracle} ms)`,
);

// 2. The fuzz, in process.
const fuzz: Array<{ id: string; html: string }> = [];
for (let seed = firstSeed; seed < firstSeed + seeds; seed++)
  fuzzedTopics(seed, perSeed).forEach((topic, index) =>
    fuzz.push({ id: `seed ${seed} #${index}: ${topic.slots.join(' ')}`, html: topic.html }),
  );
log(`fuzz: ${fuzz.length} topics (seeds ${firstSeed}..${firstSeed + seeds - 1})…`);
const fuzzRun = renderCampaign(fuzz, oracle);
log(
  `fuzz: ${fuzzRun.accepted} accepted, fast path ${fuzzRun.fastAnswered}; ${fuzzRun.liveVectors} of ${fuzzRun.vectors} render live; per renderer ${JSON.stringify(fuzzRun.liveByRenderer)}, dangerous ${JSON.stringify(fuzzRun.dangerousByRenderer)}`,
);

// 3. Output paths with the real CLI: corpus topics planted (canonical when validated, raw when refused).
function byRenderer(findings: Finding[][], cases: readonly OutputCase[]) {
  const live: Record<string, Set<string>> = {};
  findings.forEach((found, index) => {
    for (const finding of found) (live[finding.renderer] ??= new Set()).add(cases[index]![0]);
  });
  return Object.fromEntries(Object.entries(live).map(([renderer, set]) => [renderer, set.size]));
}

const repo = await makeRepo();
let outputs;
try {
  const step = Math.max(1, Math.floor(corpus.length / outputTopics));
  const files: Record<string, string> = {};
  const chosen = corpus.filter((_, i) => i % step === 0).slice(0, outputTopics);
  chosen.forEach((vector, i) => {
    const result = validateTopicHtml(vector.html);
    const html = result.ok ? result.topic.canonicalHtml : vector.html;
    files[`corpus/v_${i}.html`] = html.includes('zebra') ? html : html.replace('</bv-topic>', '<bv-reason>zebra</bv-reason></bv-topic>');
  });
  await plantTree(repo, { 'ok/base.html': '<bv-topic path="ok/base" title="Base"><bv-reason>zebra</bv-reason></bv-topic>' });
  await plantTree(repo, files, { message: 'hostile' });
  const topics = Object.keys(files).map((file) => file.replace(/\.html$/, ''));
  log(`outputs: ${topics.length} planted topics through read, query, MCP, vc diff/show…`);
  const started = performance.now();
  const collected = await outputCases(repo, topics, {
    cliSample: 20,
    words: ['zebra', 'alert', 'script', 'javascript', 'runbook', 'img', 'svg', 'onerror', 'hostile', 'data'],
    showPaths: topics.slice(0, 5),
  });
  const findings = renderOracle(
    collected.cases.map(([, markdown]) => markdown),
    oracle,
  );
  const live = collected.cases.flatMap(([where], index) => findings[index]!.map((f) => `${where}: ${f.renderer}: ${f.detail}`));
  outputs = {
    topics: topics.length,
    outputs: collected.cases.length,
    commandProblems: collected.problems,
    liveOutputs: findings.filter((f) => f.length > 0).length,
    liveOutputsByRenderer: byRenderer(findings, collected.cases),
    firstFindings: live.slice(0, 20),
    ms: Math.round(performance.now() - started),
  };
  log(`outputs: ${outputs.liveOutputs} of ${outputs.outputs} outputs render live; ${JSON.stringify(outputs.liveOutputsByRenderer)}`);
} finally {
  await cleanup(repo);
}

// 4. A hostile model: self-driven curate, then answers (CLI text, JSON, MCP).
const modelRepo = await makeRepo();
const server = await startLlmServer();
let model;
try {
  await git(modelRepo, 'config', 'brv.llm.retries', '0');
  const env = {
    BRV_LLM_PROVIDER: 'openai-compatible',
    BRV_LLM_BASE_URL: server.url,
    BRV_LLM_MODEL: 'test-model',
    BRV_LLM_API_KEY: 'sk-bench',
  };
  const cases: OutputCase[] = [];
  const stored: string[] = [];
  for (const [i, reply] of MODEL_CURATE_REPLIES.entries()) {
    const topicPath = /path="([^"]+)"/.exec((JSON.parse(reply) as { html: string }).html)![1]!;
    server.fallback = { text: reply };
    const run = await brvJson(modelRepo, ['curate', `note the runbook ${i}`, '--auto'], { env });
    if (!run.json?.success || run.json.data.status !== 'done') continue;
    stored.push(topicPath);
    const read = await brvJson(modelRepo, ['read', topicPath]);
    cases.push([`brv read ${topicPath} (curated by the model)`, read.json?.data.content ?? '']);
    cases.push(...diffCases(`brv vc show (curated ${topicPath})`, (await brv(modelRepo, ['vc', 'show'])).stdout, 'text'));
  }
  if (stored.length === 0)
    await plantTree(modelRepo, {
      'ops/runbook.html': '<bv-topic path="ops/runbook" title="Runbook"><bv-reason>runbook zebra</bv-reason></bv-topic>',
    });
  const cited = stored[0] ?? 'ops/runbook';
  const answers = MODEL_ANSWERS.map((answer) => answer.replace('[ops/runbook]', `[${cited}]`));
  server.fallback = { status: 500 };
  for (const answer of answers) {
    server.reply({ text: answer }, { text: answer });
    cases.push([
      `brv query --answer ${JSON.stringify(answer)}`,
      (await brv(modelRepo, ['query', 'runbook zebra', '--answer'], { env })).stdout,
    ]);
    const json = await brvJson(modelRepo, ['query', 'runbook zebra', '--answer'], { env });
    cases.push([`brv query --answer --format json ${JSON.stringify(answer)}`, json.json?.data.answer?.text ?? '']);
  }
  const client = await mcpClient(modelRepo, { ...ENV, ...env });
  try {
    for (const answer of answers) {
      server.reply({ text: answer });
      const result = await client.callTool({ name: 'brv-query', arguments: { query: 'runbook zebra', answer: true } });
      cases.push([
        `MCP brv-query answer ${JSON.stringify(answer)}`,
        ((result as { content?: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n'),
      ]);
    }
  } finally {
    await client.close();
  }
  const findings = renderOracle(
    cases.map(([, markdown]) => markdown),
    oracle,
  );
  model = {
    curateReplies: MODEL_CURATE_REPLIES.length,
    curateStored: stored.length,
    outputs: cases.length,
    liveOutputs: findings.filter((f) => f.length > 0).length,
    liveOutputsByRenderer: byRenderer(findings, cases),
    firstFindings: cases.flatMap(([where], index) => findings[index]!.map((f) => `${where}: ${f.renderer}: ${f.detail}`)).slice(0, 20),
  };
  log(
    `model: curate stored ${stored.length} of ${MODEL_CURATE_REPLIES.length}; ${model.liveOutputs} of ${model.outputs} outputs render live`,
  );
} finally {
  await server.close();
  await cleanup(modelRepo);
}

const result = {
  renderers: corpusRun.renderers,
  corpus: summary(corpusRun),
  fuzz: { seeds: `${firstSeed}..${firstSeed + seeds - 1}`, perSeed, ...summary(fuzzRun) },
  outputs,
  model,
};
console.log(JSON.stringify(result, null, 2));
await writeReport('attack-render-oracle', result);
const failed =
  corpusRun.findings.length +
  fuzzRun.findings.length +
  (outputs?.liveOutputs ?? 1) +
  (outputs?.commandProblems.length ?? 0) +
  (model?.liveOutputs ?? 1);
if (failed > 0) process.exitCode = 1;
