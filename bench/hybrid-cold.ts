/**
 * bench/hybrid-cold: what the first hybrid query of a tree costs (every topic embedded) and the next
 * one (only the question), in process through `brv.retrieval.query`, against the embedding model the
 * environment connects (BRV_LLM_PROVIDER, BRV_LLM_BASE_URL, BRV_LLM_EMBEDDING_MODEL; bench/embedding-server.mjs
 * WITHOUT --cache measures the model, with a warm --cache brv's own share).
 *
 *   node --import tsx bench/hybrid-cold.ts <path-to-locomo10.json> [--topics 1000]
 *
 * The topics: LoCoMo turn topics of the first conversations (bench/lib/locomo-topics.ts), imported
 * through `brv.knowledge.importTree` into a fresh repository.
 */
import { parseArgs } from 'node:util';
import { loadLocomo } from './lib/locomo-data.js';
import { withImportedTopics } from './lib/locomo-run.js';
import { generateTopics } from './lib/locomo-topics.js';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { topics: { type: 'string', default: '1000' } } });
const wanted = Number(values.topics);
if (!process.env.BRV_LLM_EMBEDDING_MODEL) throw new Error('Connect an embedding model through the environment (see the header).');
const conversations = await loadLocomo(positionals[0]!);
const topics = conversations.flatMap((c) => generateTopics(c.dialogue, 'turn')).slice(0, wanted);
await withImportedTopics('hybrid-cold', topics, async ({ brv }) => {
  const lexicalStart = performance.now();
  await brv.retrieval.query({ question: 'What did Caroline research?', hybrid: false });
  const lexicalMs = performance.now() - lexicalStart;
  const rows: string[] = [];
  let tokens = 0;
  for (const [label, question] of [
    ['first hybrid query (every topic embedded)', 'What did Caroline research?'],
    ['second hybrid query (only the question)', 'When did Melanie paint a sunrise?'],
  ] as const) {
    const start = performance.now();
    const result = await brv.retrieval.query({ question, hybrid: true });
    const ms = performance.now() - start;
    const h = result.metadata.hybrid!;
    const used = (result.usage?.embeddingTokens ?? 0) - tokens;
    tokens += used;
    rows.push(
      `| ${label} | ${Math.round(ms)} | ${h.embeddedTopics} | ${h.requests} | ${used} | ${h.ran ? 'ran' : `fell back: ${h.fallback?.error}`} |`,
    );
  }
  console.log(`${topics.length} LoCoMo turn topics; lexical query with the index built: ${Math.round(lexicalMs)} ms\n`);
  console.log('| query | ms | topics embedded | requests | embedding tokens | hybrid |\n|---|---:|---:|---:|---:|---|');
  for (const row of rows) console.log(row);
});
