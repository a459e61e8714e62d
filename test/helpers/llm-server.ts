import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A scripted OpenAI-compatible server on loopback, for tests of brv's model layer with no network:
 * `POST /v1/chat/completions` (streamed or not, as asked), `POST /v1/embeddings`, `GET /v1/models`.
 * Replies are taken from a queue (`reply`), else from `fallback`; every request is recorded.
 */
export type Scripted =
  /** A completion; streamed in `chunks` pieces `chunkDelayMs` apart when the client streams. */
  | { text: string; chunks?: number; chunkDelayMs?: number; usage?: { prompt_tokens: number; completion_tokens: number } }
  /** An HTTP error (429 with `headers: {'retry-after': '0'}`, 401, 500, …). */
  | { status: number; body?: unknown; headers?: Record<string, string> }
  /** Headers sent, then nothing: the idle timeout's case. */
  | { hang: true }
  /** A raw body, sent as is (malformed JSON, a broken event stream). */
  | { raw: string; contentType?: string }
  /** Embeddings, one vector per input (default: a deterministic hashed bag of words). */
  | { embeddings: number[][] };

export interface RecordedRequest {
  path: string;
  headers: IncomingMessage['headers'];
  body: any;
  /** The prompt text of a chat request (every message's content joined), for assertions. */
  prompt: string;
}

export interface LlmServer {
  /** The base URL to connect: `http://127.0.0.1:<port>/v1`. */
  url: string;
  requests: RecordedRequest[];
  /** Queue replies for the next chat requests, in order. */
  reply(...items: Array<Scripted | ((request: RecordedRequest) => Scripted)>): void;
  /** The reply when the queue is empty (default: a 500 naming the empty script). */
  fallback: Scripted | ((request: RecordedRequest) => Scripted);
  /** Queue replies for the next embedding requests (or functions of the request, e.g. vectors by input text). */
  replyEmbeddings(...items: Array<Scripted | ((request: RecordedRequest) => Scripted)>): void;
  close(): Promise<void>;
}

/** The environment that points brv's model at `server` (the OpenAI-compatible provider, a test key). */
export function modelEnv(server: LlmServer, key = 'sk-test-secret-0000'): Record<string, string> {
  return { BRV_LLM_PROVIDER: 'openai-compatible', BRV_LLM_BASE_URL: server.url, BRV_LLM_MODEL: 'test-model', BRV_LLM_API_KEY: key };
}

export async function startLlmServer(): Promise<LlmServer> {
  const queue: Array<Scripted | ((request: RecordedRequest) => Scripted)> = [];
  const embeddingQueue: Array<Scripted | ((request: RecordedRequest) => Scripted)> = [];
  const sockets = new Set<import('node:net').Socket>();
  const state: LlmServer = {
    url: '',
    requests: [],
    reply: (...items) => queue.push(...items),
    fallback: { status: 500, body: { error: { message: 'the test scripted no reply for this request' } } },
    replyEmbeddings: (...items) => embeddingQueue.push(...items),
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };

  const server = createServer(async (req, res) => {
    const text = await readBody(req);
    let body: any;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    const request: RecordedRequest = { path, headers: req.headers, body, prompt: promptOf(body) };
    state.requests.push(request);
    if (req.method === 'GET' && path.endsWith('/models')) {
      return json(res, 200, { object: 'list', data: [{ id: 'scripted-model', object: 'model' }] });
    }
    if (path.endsWith('/embeddings')) {
      const inputs: string[] = Array.isArray(body?.input) ? body.input : [String(body?.input ?? '')];
      const next = embeddingQueue.shift() ?? { embeddings: inputs.map((t) => hashedEmbedding(t)) };
      const scripted = typeof next === 'function' ? next(request) : next;
      if (!('embeddings' in scripted)) return send(res, scripted, false, body?.model);
      return json(res, 200, {
        object: 'list',
        model: body?.model ?? 'scripted-embedding',
        data: scripted.embeddings.map((embedding, index) => ({ object: 'embedding', index, embedding })),
        usage: { prompt_tokens: inputs.join(' ').split(/\s+/).length, total_tokens: inputs.join(' ').split(/\s+/).length },
      });
    }
    if (path.endsWith('/chat/completions')) {
      const next = queue.shift() ?? state.fallback;
      const scripted = typeof next === 'function' ? next(request) : next;
      return send(res, scripted, body?.stream === true, body?.model);
    }
    json(res, 404, { error: { message: `no route ${path}` } });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return state;
}

async function send(res: ServerResponse, scripted: Scripted, stream: boolean, model = 'scripted-model'): Promise<void> {
  if ('status' in scripted)
    return json(res, scripted.status, scripted.body ?? { error: { message: `status ${scripted.status}` } }, scripted.headers);
  if ('hang' in scripted) {
    res.writeHead(200, { 'content-type': stream ? 'text/event-stream' : 'application/json' });
    res.flushHeaders();
    return;
  }
  if ('raw' in scripted) {
    res.writeHead(200, { 'content-type': scripted.contentType ?? (stream ? 'text/event-stream' : 'application/json') });
    res.end(scripted.raw);
    return;
  }
  if ('embeddings' in scripted) return json(res, 500, { error: { message: 'embeddings scripted for a chat request' } });
  const usage = scripted.usage ?? { prompt_tokens: 100, completion_tokens: Math.max(1, Math.ceil(scripted.text.length / 4)) };
  const usageBody = { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens };
  if (!stream) {
    return json(res, 200, {
      id: 'chatcmpl-test',
      object: 'chat.completion',
      created: 0,
      model,
      choices: [{ index: 0, message: { role: 'assistant', content: scripted.text }, finish_reason: 'stop' }],
      usage: usageBody,
    });
  }
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const pieces = split(scripted.text, scripted.chunks ?? 3);
  const event = (data: unknown) => res.write(`data: ${JSON.stringify(data)}\n\n`);
  const chunk = (delta: object, finish: string | null, extra: object = {}) => ({
    id: 'chatcmpl-test',
    object: 'chat.completion.chunk',
    created: 0,
    model,
    choices: [{ index: 0, delta, finish_reason: finish }],
    ...extra,
  });
  for (const [i, piece] of pieces.entries()) {
    if (res.destroyed) return;
    event(chunk(i === 0 ? { role: 'assistant', content: piece } : { content: piece }, null));
    if (scripted.chunkDelayMs) await new Promise((r) => setTimeout(r, scripted.chunkDelayMs));
  }
  event(chunk({}, 'stop'));
  event({ id: 'chatcmpl-test', object: 'chat.completion.chunk', created: 0, model, choices: [], usage: usageBody });
  res.end('data: [DONE]\n\n');
}

function json(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
}

function split(text: string, parts: number): string[] {
  if (text.length === 0) return [''];
  const size = Math.max(1, Math.ceil(text.length / Math.max(1, parts)));
  const pieces = [];
  for (let i = 0; i < text.length; i += size) pieces.push(text.slice(i, i + size));
  return pieces;
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
  });
}

function promptOf(body: any): string {
  if (!Array.isArray(body?.messages)) return '';
  return body.messages
    .map((m: { content?: unknown }) =>
      typeof m.content === 'string'
        ? m.content
        : Array.isArray(m.content)
          ? m.content.map((p: { text?: string }) => p.text ?? '').join('')
          : '',
    )
    .join('\n');
}

/** A deterministic embedding: words hashed into 64 buckets, normalised (similar texts, similar vectors). */
export function hashedEmbedding(text: string, dimensions = 64): number[] {
  const vector = new Array<number>(dimensions).fill(0);
  for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) {
    let h = 2166136261;
    for (let i = 0; i < word.length; i++) h = Math.imul(h ^ word.charCodeAt(i), 16777619);
    vector[(h >>> 0) % dimensions]! += 1;
  }
  const norm = Math.hypot(...vector) || 1;
  return vector.map((x) => x / norm);
}
