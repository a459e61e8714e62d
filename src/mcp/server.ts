import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { ErrorCode, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { isBrvError, type ErrorKind } from '../base/errors.js';
import type { Brv } from '../service/brv.js';
import { curateMarkdown, curateToolDescription } from '../views/curate.js';
import { errorMarkdown } from '../views/errors.js';
import { queryMarkdown, searchMarkdown } from '../views/query.js';
import { listMarkdown, readText } from '../views/topics.js';
import type { RepositoryPool } from '../service/repository-pool.js';
import type { BrvService } from '../service/service.js';

// Values are checked by the service, as for the CLI, so that a bad value names the same error kind
// either way (test/mcp/mcp.test.ts); a schema here only refuses the wrong type or an unknown field
// (`usage`). Message size is bounded by the transport (src/mcp/stdio.ts).
const MAX_CWD_CHARS = 4096;

const cwd = z
  .string()
  .min(1)
  .max(MAX_CWD_CHARS)
  .optional()
  .describe('Absolute path of the project (required when the client was not started inside it, e.g. Claude Desktop)');

/** Documented here for agents; checked by the service (unknown keys and bad values: `invalid-response-format`). */
const meta = z
  .object({
    type: z.unknown().optional().describe('ADD, UPDATE or MERGE'),
    impact: z.unknown().optional().describe('"high" opens a human review; "low"'),
    reason: z.unknown().optional().describe('Why (at most 2000 characters)'),
    summary: z.unknown().optional().describe('One line (at most 2000 characters)'),
    previousSummary: z.unknown().optional(),
    confidence: z.unknown().optional().describe('"high" or "low"'),
  })
  .catchall(z.unknown());

const READ_ONLY = { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false } as const;

export interface ServerOptions {
  /** The front end's service (it owns the git processes and knows the host). */
  service: BrvService;
  launchDir: string;
  version: string;
  instructions?: string;
  /** Compact search indexes a query or search left due, after answering, between calls (default true). */
  maintenance?: boolean;
}

/**
 * brv's MCP server: ByteRover's two tools (`brv-query`, `brv-curate`, same names and inputs, so
 * existing agent setups work) plus `brv-search`, `brv-read` and `brv-list`. Every input schema is
 * strict (unknown fields are refused) and bounded; every failure is a tool result with `isError`
 * and the error's kind, never a crash of the server.
 */
export function createMcpServer(options: ServerOptions): { server: McpServer; pool: RepositoryPool; calls: CallTracker } {
  const pool = options.service.pool(options.launchDir, { serverName: 'brv MCP server' });
  const calls = new CallTracker();
  const maintenance = new MaintenanceQueue(calls, options.maintenance ?? true);
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
          query: z.string().describe('What you want to know, in words (at most 4000 characters)'),
          limit: z.number().int().min(1).max(50).optional().describe('Most topics to return (default 10)'),
          answer: z
            .boolean()
            .optional()
            .describe(
              'Answer in words from the top topics with the model connected to brv (brv providers connect), citing topic paths; ' +
                '"not in the knowledge" when they do not hold it. limit: topics read (default 5). When the model fails (no-provider when none is connected, ' +
                'llm-unavailable …) the result is an error naming its kind, followed by the topics found',
            ),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv query', ...READ_ONLY },
    },
    (args) =>
      run(args.cwd, async (brv) => {
        if (args.answer) {
          const answered = await brv.retrieval.answer({ question: args.query, ...(args.limit ? { limit: args.limit } : {}) });
          if (answered.query.metadata.index.compaction === 'due') maintenance.schedule(brv);
          if (answered.modelError) {
            // No answer, but what retrieval found (no model needed) follows the typed error.
            const { kind, message } = answered.modelError;
            return {
              ...text(`${errorMarkdown(kind, `No answer: ${message}`)}\n\n${queryMarkdown(answered.query, args.query)}`),
              isError: true,
            };
          }
          const { answerMarkdown } = await import('../views/answer.js');
          return text(answerMarkdown(answered));
        }
        const result = await brv.retrieval.query({ question: args.query, limit: args.limit ?? 10 });
        if (result.metadata.index.compaction === 'due') maintenance.schedule(brv);
        return text(queryMarkdown(result, args.query));
      }),
  );

  server.registerTool(
    'brv-curate',
    {
      title: 'brv curate',
      description: curateToolDescription(),
      inputSchema: z
        .object({
          html: z.string().describe('One complete <bv-topic path="domain/topic" title="…">…</bv-topic> document'),
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
        const result = await brv.knowledge.curateHtml(
          { html: args.html, meta: args.meta, overwrite: args.confirmOverwrite ?? false },
          { agent },
        );
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
          query: z.string(),
          limit: z.number().int().min(1).max(50).optional(),
          scope: z.string().optional().describe('Only topics under this folder, e.g. security/'),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv search', ...READ_ONLY },
    },
    (args) =>
      run(args.cwd, async (brv) => {
        const result = await brv.retrieval.search({ question: args.query, limit: args.limit ?? 10, scope: args.scope });
        if (result.index.compaction === 'due') maintenance.schedule(brv);
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
          path: z.string().describe('Topic path, e.g. security/auth (".html" optional)'),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv read', ...READ_ONLY },
    },
    (args) => run(args.cwd, async (brv) => text(readText(await brv.knowledge.read({ path: args.path })))),
  );

  server.registerTool(
    'brv-list',
    {
      title: 'brv list',
      description: 'Topic paths of the context tree, or of one folder.',
      inputSchema: z
        .object({
          prefix: z.string().optional().describe('A folder, e.g. security/'),
          cwd,
        })
        .strict(),
      annotations: { title: 'brv list', ...READ_ONLY },
    },
    (args) =>
      run(args.cwd, async (brv) => {
        return text(listMarkdown(await brv.knowledge.list({ prefix: args.prefix })));
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
    original.call(server, message.startsWith(`MCP error ${ErrorCode.InvalidParams}:`) ? errorMarkdown(usage, message) : message);
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

/**
 * Search index compaction for a long-lived server: a query never compacts on its own path (it
 * reports the index due), so the server compacts after answering — queued, one repository at a
 * time, started only once no call is running and the answer has been written, never during a call.
 */
class MaintenanceQueue {
  private readonly pending = new Set<Brv>();
  private running = false;

  constructor(
    private readonly calls: CallTracker,
    private readonly enabled: boolean,
  ) {}

  schedule(brv: Brv): void {
    if (!this.enabled) return;
    this.pending.add(brv);
    if (!this.running) void this.drain();
  }

  private async drain(): Promise<void> {
    this.running = true;
    try {
      while (this.pending.size > 0) {
        // Let the call that scheduled this (and any other) finish and its answer be written first.
        do {
          await this.calls.settled(60_000);
          await new Promise((resolve) => setTimeout(resolve, 10));
        } while (this.calls.size > 0);
        const brv = this.pending.values().next().value!;
        this.pending.delete(brv);
        await brv.retrieval.compactIndex().catch(() => {}); // an optimisation: the next query schedules it again
      }
    } finally {
      this.running = false;
    }
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
    const brv = await pool.resolve(cwd);
    const before = brv.knowledgeArrival();
    const result = await call(brv);
    // A read of this call that could not bring fetched knowledge in says so once, after its answer.
    const notice = brv.knowledgeNotice(before);
    if (!notice || result.isError) return result;
    const { knowledgeNoticeMarkdown } = await import('../views/arrival.js');
    return { ...result, content: [...result.content, { type: 'text', text: knowledgeNoticeMarkdown(notice) }] };
  } catch (error) {
    const kind: ErrorKind = isBrvError(error) ? error.kind : 'internal-error';
    const message = isBrvError(error) ? error.message : `Unexpected failure: ${(error as Error)?.message ?? String(error)}`;
    return { ...text(errorMarkdown(kind, message)), isError: true };
  }
}
