import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isBrvError, type ErrorKind } from '../errors.js';
import type { GitProcesses } from '../git/processes.js';
import type { Brv } from '../service/brv.js';
import { renderVocabulary } from '../topic/registry.js';
import { curateMarkdown } from '../views/curate.js';
import { queryMarkdown, searchMarkdown } from '../views/query.js';
import { listMarkdown, readText } from '../views/topics.js';
import { RepositoryPool } from '../service/repository-pool.js';
import { branchRef } from '../store/refs.js';

/** Limits on what a client may send: generous for real use, small enough that nothing blows up. */
const MAX_QUERY_CHARS = 4000;
const MAX_HTML_CHARS = 1024 * 1024;
const MAX_PATH_CHARS = 300;
const MAX_CWD_CHARS = 4096;

const cwd = z
  .string()
  .min(1)
  .max(MAX_CWD_CHARS)
  .optional()
  .describe('Absolute path of the project (required when the client was not started inside it, e.g. Claude Desktop)');

const meta = z
  .object({
    type: z.enum(['ADD', 'UPDATE', 'MERGE']).optional(),
    impact: z.enum(['high', 'low']).optional().describe('high opens a human review'),
    reason: z.string().max(2000).optional(),
    summary: z.string().max(2000).optional(),
    previousSummary: z.string().max(2000).optional(),
    confidence: z.enum(['high', 'low']).optional(),
  })
  .strict();

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export interface ServerOptions {
  launchDir: string;
  version: string;
  instructions?: string;
  /** The server's git processes (serveStdio creates them and stops them when the client goes). */
  processes: GitProcesses;
}

/**
 * brv's MCP server: ByteRover's two tools (`brv-query`, `brv-curate`, same names and inputs, so
 * existing agent setups work) plus `brv-search`, `brv-read` and `brv-list`. Every input schema is
 * strict (unknown fields are refused) and bounded; every failure is a tool result with `isError`
 * and the error's kind, never a crash of the server.
 */
export function createMcpServer(options: ServerOptions): { server: McpServer; pool: RepositoryPool; calls: CallTracker } {
  const pool = new RepositoryPool(options.launchDir, { serverName: 'brv MCP server', processes: options.processes });
  const calls = new CallTracker();
  const run = (cwd: string | undefined, call: (brv: Brv) => Promise<CallToolResult>) => calls.track(runCall(pool, cwd, call));
  const server = new McpServer(
    { name: 'brv', version: options.version },
    options.instructions ? { instructions: options.instructions } : {},
  );

  server.registerTool(
    'brv-query',
    {
      title: 'brv query',
      description:
        "Search this project's brv context tree (knowledge curated by agents, stored in the git repository) and get the " +
        'best-matching topics as markdown. Call it before working on a task. No match is not an error.',
      inputSchema: z
        .object({
          query: z.string().min(1).max(MAX_QUERY_CHARS).describe('What you want to know, in words'),
          limit: z.number().int().min(1).max(50).optional().describe('Most topics to return (default 10)'),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv query', ...READ_ONLY },
    },
    (args) =>
      run(args.cwd, async (brv) => {
        const result = await brv.query(args.query, { limit: args.limit ?? 10 });
        return text(queryMarkdown(result, args.query));
      }),
  );

  server.registerTool(
    'brv-curate',
    {
      title: 'brv curate',
      description: curateDescription(),
      inputSchema: z
        .object({
          html: z
            .string()
            .min(1)
            .max(MAX_HTML_CHARS)
            .describe('One complete <bv-topic path="domain/topic" title="…">…</bv-topic> document'),
          meta: meta.optional(),
          confirmOverwrite: z
            .boolean()
            .optional()
            .describe('Replace an existing topic at the same path (merge its content into yours first)'),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv curate', readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
    },
    (args) =>
      run(args.cwd, async (brv) => {
        // Who is acting: the client named itself at initialize (clientInfo.name).
        const agent = server.server.getClientVersion()?.name;
        const result = await brv.curateHtml(args.html, args.meta, args.confirmOverwrite ?? false, { agent });
        return result.ok ? text(curateMarkdown(result)) : { ...text(curateMarkdown(result)), isError: true };
      }),
  );

  server.registerTool(
    'brv-search',
    {
      title: 'brv search',
      description: 'Find topics in the context tree: paths, titles, scores and short excerpts (use brv-read to open one).',
      inputSchema: z
        .object({
          query: z.string().min(1).max(MAX_QUERY_CHARS),
          limit: z.number().int().min(1).max(50).optional(),
          scope: z.string().max(MAX_PATH_CHARS).optional().describe('Only topics under this folder, e.g. security/'),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv search', ...READ_ONLY },
    },
    (args) =>
      run(args.cwd, async (brv) => {
        const result = await brv.search(args.query, { limit: args.limit ?? 10, scope: args.scope });
        return text(searchMarkdown(result, args.query));
      }),
  );

  server.registerTool(
    'brv-read',
    {
      title: 'brv read',
      description: 'One topic of the context tree, rendered as markdown.',
      inputSchema: z
        .object({
          path: z.string().min(1).max(MAX_PATH_CHARS).describe('Topic path, e.g. security/auth (".html" optional)'),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv read', ...READ_ONLY },
    },
    (args) => run(args.cwd, async (brv) => text(readText(await brv.read(args.path)))),
  );

  server.registerTool(
    'brv-list',
    {
      title: 'brv list',
      description: 'Topic paths of the context tree, or of one folder.',
      inputSchema: z
        .object({
          prefix: z.string().max(MAX_PATH_CHARS).optional().describe('A folder, e.g. security/'),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv list', ...READ_ONLY },
    },
    (args) =>
      run(args.cwd, async (brv) => {
        return text(listMarkdown(await brv.list(args.prefix)));
      }),
  );

  namingInvalidArguments(server);
  return { server, pool, calls };
}

/**
 * Arguments a tool's input schema refuses are reported by the SDK before brv sees the call, as a tool
 * error of its own ("MCP error -32602: Input validation error: …") naming no kind. brv names it `usage`,
 * the kind the CLI gives a bad command line, so every failed call names a kind. The SDK has no public
 * hook for this, so its tool-error builder is wrapped; test/mcp/mcp.test.ts fails if an SDK upgrade
 * moves it.
 */
function namingInvalidArguments(server: McpServer): void {
  const sdk = server as unknown as { createToolError?: (message: string) => CallToolResult };
  const original = sdk.createToolError;
  if (typeof original !== 'function') return;
  const usage: ErrorKind = 'usage';
  sdk.createToolError = (message: string) =>
    original.call(server, message.startsWith(`MCP error ${ErrorCode.InvalidParams}:`) ? `✗ ${usage}: ${message}` : message);
}

/** The tool calls still running, so that a server whose client went away can let them finish first. */
export class CallTracker {
  private readonly running = new Set<Promise<unknown>>();

  track<T>(call: Promise<T>): Promise<T> {
    this.running.add(call);
    const done = () => this.running.delete(call);
    call.then(done, done);
    return call;
  }

  get size(): number {
    return this.running.size;
  }

  /** Resolves when every call running now has settled, or after `timeoutMs`, whichever is first. */
  async settled(timeoutMs: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<void>((resolve) => (timer = setTimeout(resolve, timeoutMs)));
    await Promise.race([Promise.allSettled([...this.running]), timeout]);
    clearTimeout(timer);
  }
}

function text(value: string): CallToolResult {
  return { content: [{ type: 'text', text: value }] };
}

/** Runs one tool call against its repository; a typed failure becomes an error result naming its kind. */
async function runCall(
  pool: RepositoryPool,
  cwd: string | undefined,
  call: (brv: Brv) => Promise<CallToolResult>,
): Promise<CallToolResult> {
  try {
    return await call(await pool.resolve(cwd));
  } catch (error) {
    const kind: ErrorKind = isBrvError(error) ? error.kind : 'internal-error';
    const message = isBrvError(error) ? error.message : `Unexpected failure: ${(error as Error)?.message ?? String(error)}`;
    return { ...text(`✗ ${kind}: ${message}`), isError: true };
  }
}

function curateDescription(): string {
  return [
    "Record what you learned in this project's brv context tree, as one topic (an HTML document), in one call.",
    `The topic is validated, stored as a git commit on ${branchRef('<branch>')}, and found by brv-query right away.`,
    '',
    'Path: "domain/topic" (or domain/topic/subtopic), lower-case words with - or _, e.g. security/jwt-signing. Reuse existing domains (brv-list).',
    'A topic already at that path is refused with path-exists and its content: merge your knowledge into it and call again with confirmOverwrite: true.',
    'meta (optional): {"impact": "low"|"high", "reason": "why", "summary": "one line"}; impact "high" opens a human review.',
    '',
    'Example:',
    '<bv-topic path="security/jwt" title="JWT signing" summary="RS256, monthly key rotation" tags="auth,jwt">',
    '  <bv-rule severity="must">Sign JWTs with RS256.</bv-rule>',
    '  <bv-fact subject="key_rotation" category="project" value="monthly">Signing keys rotate monthly.</bv-fact>',
    '  <bv-reason>Agreed in the auth review.</bv-reason>',
    '</bv-topic>',
    '',
    'On failure the result lists every error as "✗ <kind>: <message>" followed by the vocabulary, so you can fix and resend.',
    '',
    renderVocabulary(),
  ].join('\n');
}
