import test from 'ava';
import { connectMcp } from '../helpers/mcp.js';
import { McpError } from '@modelcontextprotocol/sdk/types.js';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { CLI, ENV, cleanup, makeRepo, refTip } from '../helpers/repo.js';
import { idAtEdges } from '../../src/mcp/stdio.js';

const topic = (p: string, rule: string) => `<bv-topic path="${p}" title="${p}"><bv-rule severity="must">${rule}</bv-rule></bv-topic>`;
const INIT = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function textOf(result: any): string {
  return (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
}

/** `brv mcp` as a raw child process: send lines, await answers by id. */
class RawServer {
  readonly child: ChildProcessWithoutNullStreams;
  readonly answers: any[] = [];
  private buffer = '';
  private waiters: Array<() => void> = [];

  constructor(cwd: string) {
    this.child = spawn('node', [CLI, 'mcp'], { cwd, env: ENV, stdio: 'pipe' });
    this.child.stdout.on('data', (chunk: Buffer) => {
      this.buffer += chunk.toString('utf8');
      let newline;
      while ((newline = this.buffer.indexOf('\n')) >= 0) {
        this.answers.push(JSON.parse(this.buffer.slice(0, newline)));
        this.buffer = this.buffer.slice(newline + 1);
      }
      for (const wake of this.waiters.splice(0)) wake();
    });
    this.child.stdin.on('error', () => {});
  }

  send(message: unknown): void {
    this.child.stdin.write(typeof message === 'string' ? message : `${JSON.stringify(message)}\n`);
  }

  async answer(match: (answer: any) => boolean, timeoutMs = 20_000): Promise<any> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.answers.find(match);
      if (found) return found;
      if (Date.now() > deadline) throw new Error(`no answer; got ${JSON.stringify(this.answers).slice(0, 500)}`);
      await new Promise<void>((resolve) => {
        this.waiters.push(resolve);
        setTimeout(resolve, 200);
      });
    }
  }

  async initialize(): Promise<void> {
    this.send(INIT);
    await this.answer((a) => a.id === 0);
    this.send({ jsonrpc: '2.0', method: 'notifications/initialized' });
  }

  exited(): Promise<number | null> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return Promise.resolve(this.child.exitCode);
    return new Promise((resolve) => this.child.once('exit', (code) => resolve(code)));
  }
}

test('a message over 10 MB gets an InvalidRequest error with its id and the server keeps serving (real client)', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const client = await connectMcp(t, repo);

  const huge = topic('big/topic', 'x'.repeat(11 * 1024 * 1024));
  const error = await t.throwsAsync(client.callTool({ name: 'brv-curate', arguments: { html: huge } }));
  t.true(error instanceof McpError, String(error));
  t.is((error as McpError).code, -32600);
  t.regex(error!.message, /too large: \d+ bytes, the limit is 10485760 bytes/);

  await client.callTool({ name: 'brv-curate', arguments: { html: topic('security/jwt', 'Sign JWTs with RS256.') } });
  const found = await client.callTool({ name: 'brv-query', arguments: { query: 'how are JWTs signed' } });
  t.falsy(found.isError);
  t.regex(textOf(found), /RS256/);
});

test('raw stdio: oversized lines (id first, id last, no id), garbage and invalid requests are answered; serving goes on', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const server = new RawServer(repo);
  t.teardown(() => void server.child.kill('SIGKILL'));
  await server.initialize();
  const filler = 'y'.repeat(11 * 1024 * 1024);

  // The id before the payload, sent in many small writes (never buffered whole).
  server.send(`{"jsonrpc":"2.0","id":"first","method":"tools/call","params":{"name":"brv-query","arguments":{"query":"`);
  for (let i = 0; i < 11; i++) server.send('z'.repeat(1024 * 1024));
  server.send('"}}}\n');
  // The id after the payload, as the SDK's clients write it; a nested "id" must not be taken for it.
  server.send(`{"method":"tools/call","params":{"name":"brv-query","arguments":{"query":"${filler}","id":7}},"jsonrpc":"2.0","id":42}\n`);
  // No id to be found: answered without one.
  server.send(`{"method":"tools/call","params":{"x":"${filler}","id":9}}\n`);
  server.send('this is not json\n');
  server.send({ jsonrpc: '2.0', id: 'bad', method: 42 });
  server.send({ jsonrpc: '2.0', id: 'q', method: 'tools/call', params: { name: 'brv-list', arguments: {} } });

  const first = await server.answer((a) => a.id === 'first');
  t.is(first.error?.code, -32600);
  t.regex(first.error?.message, /too large/);
  const last = await server.answer((a) => a.id === 42);
  t.is(last.error?.code, -32600);
  const list = await server.answer((a) => a.id === 'q');
  t.regex(textOf(list.result), /No topics yet/);
  const withoutId = server.answers.filter((a) => a.id === undefined);
  t.deepEqual(
    withoutId.map((a) => a.error?.code),
    [-32600, -32700],
    JSON.stringify(withoutId),
  );
  t.is((await server.answer((a) => a.id === 'bad')).error?.code, -32600);
  t.is(
    server.answers.find((a) => a.id === 9),
    undefined,
  );
  t.is(server.child.exitCode, null, 'still running');

  server.child.stdin.end();
  t.is(await server.exited(), 0);
});

test('idAtEdges finds only a top-level id', (t) => {
  t.is(idAtEdges('{"jsonrpc":"2.0","id":3,"method":"x","params":{"a":"', ''), 3);
  t.is(idAtEdges('{"method":"tools/call","id":"abc","params":', ''), 'abc');
  t.is(idAtEdges('{"params":{"id":1,', ''), undefined);
  t.is(idAtEdges('', '…aaa"}},"jsonrpc":"2.0","id":12}'), 12);
  t.is(idAtEdges('', '…aaa","id":12}}'), undefined);
  t.is(idAtEdges('', '…aaa\\"id\\":12}"}'), undefined);
  t.is(idAtEdges('', '…"id":1.5}'), undefined);
});

/** Pids whose parent is `pid`, from /proc. */
function childrenOf(pid: number): number[] {
  const found: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid …: comm may hold spaces or parentheses, so read after the last ")".
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (ppid === pid) found.push(Number(entry));
    } catch {
      // Gone meanwhile.
    }
  }
  return found;
}

const alive = (pid: number) => {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return false;
  }
};

test('a client that goes away during a curate: the server and all its git children are gone within seconds', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  for (let trial = 0; trial < 10; trial++) {
    const server = new RawServer(repo);
    const pid = server.child.pid!;
    const children = new Set<number>();
    const watch = setInterval(() => childrenOf(pid).forEach((c) => children.add(c)), 5);
    try {
      await server.initialize();
      server.send({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'brv-curate', arguments: { html: topic(`trial/t${trial}`, `Rule ${trial}.`), confirmOverwrite: true } },
      });
      await new Promise((resolve) => setTimeout(resolve, trial * 15));
      // The client closes stdin, or vanishes as a killed client does (every pipe closed), or the
      // server is sent SIGTERM.
      if (trial % 3 === 0) server.child.stdin.end();
      else if (trial % 3 === 1) for (const stream of [server.child.stdin, server.child.stdout, server.child.stderr]) stream.destroy();
      else server.child.kill('SIGTERM');
      const exit = await Promise.race([server.exited(), new Promise((resolve) => setTimeout(() => resolve('timeout'), 6000))]);
      t.not(exit, 'timeout', `trial ${trial}: the server exited`);
      clearInterval(watch);
      const deadline = Date.now() + 3000;
      let left = [...children].filter(alive);
      while (left.length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        left = [...children].filter(alive);
      }
      t.deepEqual(left, [], `trial ${trial}: no git child left (${children.size} seen)`);
    } finally {
      clearInterval(watch);
      server.child.kill('SIGKILL');
    }
  }
  // Curates that did finish left the ref consistent.
  t.truthy(await refTip(repo));
});

test('unknown methods and a burst of 200 concurrent brv-query calls: every one answered, the server stays healthy', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const client = await connectMcp(t, repo);
  await client.callTool({ name: 'brv-curate', arguments: { html: topic('ops/deploy', 'Deploy on Tuesdays.') } });

  for (const method of ['no/such/method', 'tools/explode', 'resources/list', '']) {
    const error = await t.throwsAsync(client.request({ method, params: {} } as never, (await import('zod')).z.any()));
    t.true(error instanceof McpError, `${method}: ${String(error)}`);
  }
  const unknownTool = await client.callTool({ name: 'brv-nope', arguments: {} }).catch((e: unknown) => e);
  t.truthy((unknownTool as { isError?: boolean }).isError || unknownTool instanceof McpError);

  const results = await Promise.all(
    Array.from({ length: 200 }, (_, i) =>
      client.callTool({ name: 'brv-query', arguments: { query: i % 2 ? 'when do we deploy' : 'nothing here' } }),
    ),
  );
  t.is(results.filter((r) => !r.isError).length, 200);
  t.true(results.filter((_, i) => i % 2 === 1).every((r) => /Tuesdays/.test(textOf(r))));
  t.regex(textOf(await client.callTool({ name: 'brv-list', arguments: {} })), /ops\/deploy/);
});
