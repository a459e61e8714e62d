import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { existsSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { CLI, ENV, brv, makeRepo, ROOT } from '../helpers/repo.js';

/**
 * Golden files for what the MCP tools answer (the markdown views of src/views/), beside the CLI's in
 * fixtures/golden/ (`mcp-<call>.md`). `UPDATE_GOLDEN=1 npx ava test/golden/mcp-output.test.ts`
 * (`npm run golden:update`) rewrites them.
 */
const GOLDEN = path.join(ROOT, 'fixtures/golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

const CALLS: Array<{ name: string; tool: string; arguments: Record<string, unknown> }> = [
  {
    name: 'curate',
    tool: 'brv-curate',
    arguments: {
      html: '<bv-topic path="security/jwt" title="JWT signing" summary="How tokens are signed"><bv-rule id="r1" severity="must">Sign every token with RS256.</bv-rule><bv-reason>Agreed in review.</bv-reason></bv-topic>',
      meta: { impact: 'low', reason: 'golden' },
    },
  },
  {
    name: 'curate-high-impact',
    tool: 'brv-curate',
    arguments: {
      html: '<bv-topic path="ops/deploy" title="Deploys"><bv-rule severity="must">Drop the cache table on deploy.</bv-rule></bv-topic>',
      meta: { impact: 'high', reason: 'drops data' },
    },
  },
  { name: 'curate-invalid', tool: 'brv-curate', arguments: { html: '<bv-topic path="x/y"><bv-nope>?</bv-nope></bv-topic>' } },
  { name: 'query', tool: 'brv-query', arguments: { query: 'how are tokens signed' } },
  { name: 'query-no-match', tool: 'brv-query', arguments: { query: 'kubernetes autoscaling quotas' } },
  { name: 'search', tool: 'brv-search', arguments: { query: 'cache deploy' } },
  { name: 'search-no-match', tool: 'brv-search', arguments: { query: 'kubernetes autoscaling quotas' } },
  { name: 'read', tool: 'brv-read', arguments: { path: 'security/jwt' } },
  { name: 'read-missing', tool: 'brv-read', arguments: { path: 'no/such/topic' } },
  { name: 'list', tool: 'brv-list', arguments: {} },
  { name: 'list-empty-folder', tool: 'brv-list', arguments: { prefix: 'nothing/' } },
];

function normalise(text: string, repo: string): string {
  return text
    .split(repo)
    .join('<repo>')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g, '<time>')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g, '<oid>')
    .replace(/\b\d+(?:\.\d+)? ?ms\b/g, '<n> ms');
}

test('every MCP tool answer matches fixtures/golden/mcp-*.md', async (t) => {
  const repo = await makeRepo();
  await brv(repo, ['init']);
  const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'mcp'], cwd: repo, env: ENV, stderr: 'pipe' });
  const client = new Client({ name: 'brv-golden', version: '1.0.0' });
  await client.connect(transport);
  t.teardown(() => client.close());
  const mismatched: string[] = [];
  for (const call of CALLS) {
    const result = await client.callTool({ name: call.tool, arguments: call.arguments });
    const content = (result.content as Array<{ type: string; text: string }>).map((c) => c.text).join('\n');
    const actual = normalise(
      `${call.tool} ${JSON.stringify(call.arguments)}\nisError: ${Boolean(result.isError)}\n---\n${content}\n`,
      repo,
    );
    const file = path.join(GOLDEN, `mcp-${call.name}.md`);
    if (UPDATE) {
      await mkdir(GOLDEN, { recursive: true });
      await writeFile(file, actual);
      continue;
    }
    const expected = existsSync(file) ? await readFile(file, 'utf8') : '(no golden file)';
    if (actual !== expected) {
      mismatched.push(call.name);
      t.is(actual, expected, `mcp-${call.name}.md differs (UPDATE_GOLDEN=1 rewrites it; review the diff)`);
    }
  }
  t.deepEqual(mismatched, []);
});
