/**
 * Campaign 5, MCP: a raw JSON-RPC client over the server's stdio (no SDK in between, so it can send
 * what a broken or hostile client sends), hostile calls, and many calls at once. Shared by
 * test/attack/mcp.test.ts and bench/attack/mcp.ts (1,000 concurrent calls).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { CLI, ENV } from '../../helpers/repo.js';
import { topicHtml } from './processes.js';

export interface JsonRpcResponse {
  jsonrpc: '2.0';
  id: number | string | null;
  result?: any;
  error?: { code: number; message: string };
}

/** `brv mcp` spawned in `cwd`, spoken to line by line. */
export class RawMcp {
  private nextId = 1;
  private readonly pending = new Map<number | string, (response: JsonRpcResponse) => void>();
  /** Responses that matched no request (e.g. a parse error, id null). */
  readonly unmatched: JsonRpcResponse[] = [];
  stderr = '';
  exited: number | null | undefined;

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      let message: JsonRpcResponse;
      try {
        message = JSON.parse(line);
      } catch {
        this.unmatched.push({ jsonrpc: '2.0', id: null, error: { code: 0, message: `not JSON on stdout: ${line.slice(0, 200)}` } });
        return;
      }
      const resolve = message.id === null || message.id === undefined ? undefined : this.pending.get(message.id);
      if (resolve) {
        this.pending.delete(message.id!);
        resolve(message);
      } else if ('id' in message) this.unmatched.push(message);
    });
    child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (this.stderr += chunk));
    child.on('exit', (code) => {
      this.exited = code;
      for (const resolve of this.pending.values())
        resolve({ jsonrpc: '2.0', id: null, error: { code: -1, message: `server exited (${code})` } });
      this.pending.clear();
    });
  }

  static async start(cwd: string): Promise<RawMcp> {
    const mcp = new RawMcp(spawn('node', [CLI, 'mcp'], { cwd, env: ENV, stdio: ['pipe', 'pipe', 'pipe'] }));
    const init = await mcp.request('initialize', {
      protocolVersion: '2025-06-18',
      capabilities: {},
      clientInfo: { name: 'brv-attack', version: '1.0.0' },
    });
    if (!init.result) throw new Error(`initialize failed: ${JSON.stringify(init)} ${mcp.stderr}`);
    mcp.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    return mcp;
  }

  /** Writes one raw line (an object is serialized; a string goes as it is). */
  send(message: object | string): void {
    this.child.stdin!.write(`${typeof message === 'string' ? message : JSON.stringify(message)}\n`);
  }

  request(method: string, params?: unknown): Promise<JsonRpcResponse> {
    const id = this.nextId++;
    const answer = new Promise<JsonRpcResponse>((resolve) => this.pending.set(id, resolve));
    this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    return answer;
  }

  callTool(name: string, args: unknown): Promise<JsonRpcResponse> {
    return this.request('tools/call', { name, arguments: args });
  }

  get alive(): boolean {
    return this.exited === undefined;
  }

  async close(): Promise<void> {
    if (!this.alive) return;
    const exited = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin!.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 5000);
    await exited;
    clearTimeout(timer);
  }
}

/** The text of a tools/call answer (result or JSON-RPC error) and whether it is an error. */
export function answerOf(response: JsonRpcResponse): { isError: boolean; text: string } {
  if (response.error) return { isError: true, text: `${response.error.code} ${response.error.message}` };
  const content = (response.result?.content ?? []) as Array<{ text?: string }>;
  return { isError: response.result?.isError === true, text: content.map((c) => c.text ?? '').join('\n') };
}

const MIB = 1024 * 1024;

/**
 * Hostile tool calls the existing MCP test (test/mcp/mcp.test.ts) does not send: every tool's every
 * field with a wrong type, an over-long value (1 MiB and more), an escaping path, an unknown field.
 */
export function hostileToolCalls(outside: string): Array<{ name: string; args: unknown; expect: RegExp }> {
  const big = 'x'.repeat(MIB + 1);
  const calls: Array<{ name: string; args: unknown; expect: RegExp }> = [];
  const invalid = /invalid|expected|too_big|too_small|unrecognized|at most|at least|Input validation/i;
  const wrongTypes: unknown[] = [null, 42, true, [], {}, ['a'], { $gt: '' }];
  const fields: Record<string, Record<string, unknown>> = {
    'brv-query': { query: 'jwt' },
    'brv-search': { query: 'jwt' },
    'brv-read': { path: 'team/known' },
    'brv-list': {},
    'brv-curate': { html: topicHtml('mcp/hostile', 'x') },
  };
  const optional: Record<string, string[]> = {
    'brv-query': ['query', 'limit', 'cwd'],
    'brv-search': ['query', 'limit', 'scope', 'cwd'],
    'brv-read': ['path', 'cwd'],
    'brv-list': ['prefix', 'cwd'],
    'brv-curate': ['html', 'meta', 'confirmOverwrite', 'cwd'],
  };
  for (const [name, base] of Object.entries(fields)) {
    for (const field of optional[name]!) {
      for (const value of wrongTypes) {
        // Values of the right type for that field are not hostile: {} is a valid meta, 42 a valid limit.
        if (
          (field === 'meta' && JSON.stringify(value) === '{}') ||
          (field === 'limit' && value === 42) ||
          (field === 'confirmOverwrite' && value === true)
        )
          continue;
        calls.push({ name, args: { ...base, [field]: value }, expect: invalid });
      }
      // Values are checked by the service (the kinds the CLI names); only cwd is bounded by the schema.
      if (field !== 'limit' && field !== 'confirmOverwrite' && field !== 'meta')
        calls.push({ name, args: { ...base, [field]: big }, expect: /✗ (too-large|unsafe-path|usage):/ });
    }
    calls.push({ name, args: { ...base, unknownField: 1 }, expect: invalid });
    // Own "__proto__" and "constructor" keys, as JSON.parse makes them (an object literal would set the prototype).
    const pollution = '"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}';
    const json = JSON.stringify(base);
    calls.push({ name, args: JSON.parse(json === '{}' ? `{${pollution}}` : json.replace(/^\{/, `{${pollution},`)), expect: invalid });
    calls.push({ name, args: { ...base, cwd: outside }, expect: /outside-repository|not-a-git-repository|invalid-cwd|not a git/i });
    calls.push({
      name,
      args: { ...base, cwd: `${outside}/../../../../..` },
      expect: /outside-repository|not-a-git-repository|invalid-cwd|not a git/i,
    });
  }
  calls.push({ name: 'brv-curate', args: { html: topicHtml('a/b', 'x'), meta: { reason: big } }, expect: invalid });
  calls.push({ name: 'brv-curate', args: { html: topicHtml('a/b', 'x'), meta: { impact: 'high', extra: 1 } }, expect: invalid });
  calls.push({
    name: 'brv-curate',
    args: { html: `${topicHtml('a/b', 'x')}${' '.repeat(MIB - 200)}` },
    expect: /too-large|too_big|at most|invalid/i,
  });
  for (const p of ['../../etc/passwd', '/etc/passwd', 'a\\..\\..\\x', 'a/\u0000b', '.git/config', 'a/\u001b]0;x\u0007']) {
    calls.push({ name: 'brv-read', args: { path: p }, expect: /unsafe-path|not-found|invalid|topic-not-found/i });
    calls.push({ name: 'brv-list', args: { prefix: p }, expect: /unsafe-path|invalid|./ });
    calls.push({
      name: 'brv-curate',
      args: { html: topicHtml('a/b', 'x').replace('path="a/b"', `path="${p}"`) },
      expect: /unsafe-path|unsafe-html|invalid/i,
    });
  }
  calls.push({ name: 'brv-nope', args: {}, expect: /not found|unknown|brv-nope/i });
  calls.push({ name: '', args: {}, expect: /not found|unknown|invalid/i });
  calls.push({ name: '__proto__', args: {}, expect: /not found|unknown|invalid|disabled/i });
  calls.push({ name: 'constructor', args: {}, expect: /not found|unknown|invalid|disabled/i });
  return calls;
}

export interface ConcurrentReport {
  calls: number;
  answered: number;
  /** Calls whose answer was not the expected kind (a valid call failing, a hostile one succeeding). */
  wrong: string[];
  curatesWritten: number;
  wallMs: number;
  latenciesMs: number[];
}

/**
 * `count` calls sent at once, without waiting: queries, searches, reads, lists, curates of distinct
 * new topics (one in ten, unless `curates` is false) and hostile calls, interleaved. Every call must be answered, valid ones
 * successfully and hostile ones with an error; the written topics are returned for checking.
 */
export async function concurrentCalls(
  mcp: RawMcp,
  count: number,
  outside: string,
  options: { curates?: boolean } = {},
): Promise<ConcurrentReport & { written: string[] }> {
  const hostile = hostileToolCalls(outside).filter((c) => JSON.stringify(c.args).length < 10_000);
  const plan = Array.from({ length: count }, (_, i) => {
    switch (i % 10) {
      case 0:
        if (options.curates === false) return { name: 'brv-list', args: { prefix: 'team/' }, valid: true };
        return { name: 'brv-curate', args: { html: topicHtml(`mcp/c${i}`, `concurrentword${i}`) }, valid: true, writes: `mcp/c${i}` };
      case 1:
      case 2:
        return { name: 'brv-query', args: { query: `known rule ${i}` }, valid: true };
      case 3:
        return { name: 'brv-search', args: { query: 'known' }, valid: true };
      case 4:
        return { name: 'brv-read', args: { path: 'team/known' }, valid: true };
      case 5:
        return { name: 'brv-list', args: {}, valid: true };
      default: {
        const call = hostile[i % hostile.length]!;
        return { name: call.name, args: call.args, valid: false, expect: call.expect };
      }
    }
  });
  const start = performance.now();
  const latenciesMs: number[] = [];
  const responses = await Promise.all(
    plan.map(async (call) => {
      const t0 = performance.now();
      const response = await mcp.callTool(call.name, call.args);
      latenciesMs.push(performance.now() - t0);
      return response;
    }),
  );
  const wallMs = Math.round(performance.now() - start);
  const wrong: string[] = [];
  let answered = 0;
  for (const [i, response] of responses.entries()) {
    const call = plan[i]!;
    if (response.error?.code === -1) {
      wrong.push(`#${i} ${call.name}: no answer (${response.error.message})`);
      continue;
    }
    answered++;
    const { isError, text } = answerOf(response);
    if (call.valid && isError) wrong.push(`#${i} ${call.name} failed: ${text.slice(0, 200)}`);
    if (!call.valid && !isError) wrong.push(`#${i} ${call.name} ${JSON.stringify(call.args).slice(0, 120)} was accepted`);
    if (!call.valid && isError && call.expect && !call.expect.test(text))
      wrong.push(`#${i} ${call.name}: unexpected error ${text.slice(0, 200)}`);
  }
  const written = plan.filter((c) => c.writes).map((c) => c.writes!);
  return { calls: count, answered, wrong, curatesWritten: written.length, wallMs, latenciesMs, written };
}
