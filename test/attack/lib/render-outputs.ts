/**
 * Issue 31's output paths: what agents and people read from a repository holding hostile topics —
 * brv read (text, JSON), brv query (text, rendered_md), MCP brv-read/brv-query/brv-search, vc diff and
 * vc show (text, JSON, both sides of each diff, rev:path) — collected as labelled markdown for the
 * renderer oracle. Shared by test/cli/hostile-render.test.ts and bench/attack/render-oracle.ts.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { brv, brvJson, CLI, ENV } from '../../helpers/repo.js';

export type OutputCase = [where: string, markdown: string];

/** The two sides of a unified diff (or of several, one after the other) as markdown: removed and context lines, added and context lines. */
function diffSides(diff: string, indent: string): [before: string, after: string] {
  const before: string[] = [];
  const after: string[] = [];
  for (const printed of diff.split('\n')) {
    if (!printed.startsWith(indent)) continue;
    const line = printed.slice(indent.length);
    if (line.startsWith('+++') || line.startsWith('---') || line.startsWith('@@')) continue;
    if (line.startsWith('+')) after.push(line.slice(1));
    else if (line.startsWith('-')) before.push(line.slice(1));
    else if (line.startsWith(' ')) {
      before.push(line.slice(1));
      after.push(line.slice(1));
    }
  }
  return [before.join('\n'), after.join('\n')];
}

/**
 * A diff as an agent may read it: each side as markdown, and the terminal text whole (its diffs are
 * indented four columns). A JSON `diff` field is a plain unified diff, data like `git diff`'s output:
 * its sides are checked, not the diff read as markdown.
 */
export function diffCases(where: string, diff: string, form: 'text' | 'json'): OutputCase[] {
  const [before, after] = diffSides(diff, form === 'text' ? '    ' : '');
  const sides: OutputCase[] = [
    [`${where} (old side)`, before],
    [`${where} (new side)`, after],
  ];
  return form === 'text' ? [[`${where} (as printed)`, diff], ...sides] : sides;
}

function textOf(result: unknown): string {
  return ((result as { content?: Array<{ text: string }> }).content ?? []).map((c) => c.text).join('\n');
}

/** A real MCP client on `brv mcp` in `cwd`; the caller closes it. */
export async function mcpClient(cwd: string, env: Record<string, string> = ENV): Promise<Client> {
  const transport = new StdioClientTransport({ command: 'node', args: [CLI, 'mcp'], cwd, env, stderr: 'pipe' });
  const client = new Client({ name: 'brv-render-oracle', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/**
 * Every output path over `topics` (paths on the main branch, whose last commit added them):
 * `cliSample` of them read through the CLI (a process each), all through MCP brv-read; queries for
 * `words` (each topic should hold one) through the CLI (limit 50) and MCP; the last commit through
 * vc diff and vc show; `showPaths` as `vc show main:<path>`. `problems` collects what did not work
 * (a failed command): a broken output path is a finding too.
 */
export async function outputCases(
  repo: string,
  topics: readonly string[],
  options: { cliSample?: number; words?: readonly string[]; showPaths?: readonly string[] } = {},
): Promise<{ cases: OutputCase[]; problems: string[]; changes: number }> {
  const cases: OutputCase[] = [];
  const problems: string[] = [];
  const words = options.words ?? ['zebra'];
  const every = Math.max(1, Math.floor(topics.length / (options.cliSample ?? 6)));
  for (const [i, topic] of topics.entries()) {
    if (i % every !== 0) continue;
    const read = await brvJson(repo, ['read', topic]);
    if (!read.json?.success) problems.push(`brv read ${topic} --format json failed: ${read.stdout}${read.stderr}`);
    cases.push([`brv read ${topic} --format json`, read.json?.data.content ?? '']);
    const text = await brv(repo, ['read', topic]);
    if (text.exitCode !== 0) problems.push(`brv read ${topic} failed: ${text.stderr}`);
    cases.push([`brv read ${topic}`, text.stdout]);
  }
  for (const word of words.slice(0, 2)) {
    const query = await brvJson(repo, ['query', word, '--limit', '50']);
    if (!query.json?.success) problems.push(`brv query ${word} --format json failed: ${query.stdout}${query.stderr}`);
    for (const doc of (query.json?.data.matchedDocs ?? []) as Array<{ path: string; rendered_md: string }>)
      cases.push([`brv query ${word} rendered_md: ${doc.path}`, doc.rendered_md]);
    const text = await brv(repo, ['query', word, '--limit', '50']);
    if (text.exitCode !== 0) problems.push(`brv query ${word} failed: ${text.stderr}`);
    cases.push([`brv query ${word} (text)`, text.stdout]);
  }

  const client = await mcpClient(repo);
  try {
    for (const topic of topics) {
      const result = await client.callTool({ name: 'brv-read', arguments: { path: topic } });
      if (result.isError) problems.push(`MCP brv-read ${topic} failed: ${textOf(result)}`);
      cases.push([`MCP brv-read ${topic}`, textOf(result)]);
    }
    for (const word of words) {
      for (const name of ['brv-query', 'brv-search']) {
        const found = await client.callTool({ name, arguments: { query: word, limit: 50 } });
        if (found.isError) problems.push(`MCP ${name} ${word} failed: ${textOf(found)}`);
        cases.push([`MCP ${name} ${word}`, textOf(found)]);
      }
    }
  } finally {
    await client.close();
  }

  const diff = await brv(repo, ['vc', 'diff']);
  if (diff.exitCode !== 0) problems.push(`brv vc diff failed: ${diff.stderr}`);
  cases.push(...diffCases('brv vc diff', diff.stdout, 'text'));
  const diffJson = await brvJson(repo, ['vc', 'diff']);
  const changes = (diffJson.json?.data.changes ?? []) as Array<{ path: string; diff: string }>;
  cases.push(...diffCases('brv vc diff --format json', changes.map((change) => change.diff).join('\n'), 'json'));
  const show = await brv(repo, ['vc', 'show']);
  if (show.exitCode !== 0) problems.push(`brv vc show failed: ${show.stderr}`);
  cases.push(...diffCases('brv vc show', show.stdout, 'text'));
  const showJson = await brvJson(repo, ['vc', 'show']);
  const shown = (showJson.json?.data.changes ?? []) as Array<{ path: string; diff: string }>;
  cases.push(...diffCases('brv vc show --format json', shown.map((change) => change.diff).join('\n'), 'json'));
  for (const topic of options.showPaths ?? []) {
    const then = await brv(repo, ['vc', 'show', `main:${topic}`]);
    if (then.exitCode !== 0) problems.push(`brv vc show main:${topic} failed: ${then.stderr}`);
    cases.push([`brv vc show main:${topic}`, then.stdout]);
    const thenJson = await brvJson(repo, ['vc', 'show', `main:${topic}`]);
    if (!thenJson.json?.success) problems.push(`brv vc show main:${topic} --format json failed: ${thenJson.stdout}`);
    cases.push([`brv vc show main:${topic} --format json: content`, thenJson.json?.data.content ?? '']);
  }
  return { cases, problems, changes: changes.length };
}
