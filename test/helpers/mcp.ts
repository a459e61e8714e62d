import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { ExecutionContext } from 'ava';
import { CLI, ENV } from './repo.js';

/** A real MCP client talking to `brv mcp` started in `cwd`; closed when the test ends. */
export async function connectMcp(t: ExecutionContext, cwd: string, env: Record<string, string> = ENV): Promise<Client> {
  const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'mcp'], cwd, env, stderr: 'pipe' });
  const client = new Client({ name: 'brv-test', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  return client;
}

/** The text of a tool result. */
export function textOf(result: unknown): string {
  return ((result as { content: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');
}
