import type { ContextStore } from '../store/context-store.js';
import { failed, parseMeta, parseResponseBody, type CurateEnvelope, type CurateError } from './envelope.js';
import { buildCorrectionPrompt, buildGeneratePrompt, type PromptAttachment } from './prompts.js';
import { decodeInput, deleteFile, readInputFile } from './response-file.js';
import type { SessionStore } from './sessions.js';
import { writeTopic, type WriteResult } from './write-topic.js';
import { mark } from '../base/trace.js';

/** Four responses per session: one generate and three corrections, as in ByteRover. */
export const MAX_ATTEMPTS = 4;
export const MAX_INTENT_BYTES = 256 * 1024;

export interface CurateContext {
  store: ContextStore;
  sessions: SessionStore;
  branch: string;
  agent?: string;
  /** The model writing the responses (self-driven curate): recorded as Brv-Model. */
  model?: string;
}

export interface CurateRequest {
  intent?: string;
  session?: string;
  response?: string;
  responseFile?: string;
  deleteResponseFile?: boolean;
  overwrite?: boolean;
  /** One-shot mode for scripts: a topic file and optional meta JSON, no session. */
  htmlFile?: string;
  /** With `htmlFile: '-'`: the HTML read from standard input by the front end (`--html-file -`). */
  htmlStdin?: Uint8Array;
  meta?: string;
}

/** The flag rules of the protocol; misuse is reported in the envelope, not as a usage crash. */
export function checkFlags(request: CurateRequest): CurateEnvelope | undefined {
  const bad = (message: string) => failed('invalid-flag-combination', message);
  const hasResponse = request.response !== undefined;
  const hasFile = request.responseFile !== undefined;
  if (request.htmlFile !== undefined) {
    if (request.session !== undefined || hasResponse || hasFile || request.deleteResponseFile) {
      return bad(
        '--html-file is the one-shot mode; it cannot be combined with --session, --response, --response-file or --delete-response-file.',
      );
    }
    if (request.intent !== undefined) return bad('--html-file takes no intent text.');
    return undefined;
  }
  if (request.meta !== undefined) return bad('--meta goes with --html-file; in a session, put "meta" inside the response JSON.');
  if (request.session === undefined) {
    if (request.overwrite || hasResponse || hasFile || request.deleteResponseFile) {
      return bad('--overwrite, --response, --response-file and --delete-response-file continue a session: add --session <id>.');
    }
    return undefined;
  }
  if (request.intent !== undefined) return bad('Give either an intent (to start a session) or --session (to continue one), not both.');
  if (hasResponse && hasFile) return bad('Use --response or --response-file, not both.');
  if (request.deleteResponseFile && !hasFile) return bad('--delete-response-file needs --response-file.');
  if (!hasResponse && !hasFile) {
    return failed(
      'missing-response',
      "Continuing a session needs the agent's reply: --response '<json>' or --response-file <file>.",
      request.session,
    );
  }
  return undefined;
}

export async function runCurate(ctx: CurateContext, request: CurateRequest): Promise<CurateEnvelope> {
  const misuse = checkFlags(request);
  if (misuse) return misuse;
  if (request.htmlFile !== undefined) return oneShot(ctx, request.htmlFile, request.meta, request.overwrite ?? false, request.htmlStdin);
  if (request.session === undefined) return kickoff(ctx, request.intent ?? '');

  let body = request.response;
  if (request.responseFile !== undefined) {
    const read = await readInputFile(request.responseFile);
    if (!read.ok) {
      const keepsSession = read.kind === 'too-large' || read.kind === 'invalid-encoding';
      return failed(read.kind, read.message, keepsSession ? request.session : undefined);
    }
    body = read.text;
  }
  const envelope = await continueSession(ctx, request.session, body ?? '', request.overwrite ?? false);
  if (request.responseFile !== undefined && request.deleteResponseFile) {
    const problem = await deleteFile(request.responseFile);
    if (problem) envelope.errors = [...(envelope.errors ?? []), { kind: 'response-file-delete-error', message: problem }];
  }
  return envelope;
}

export async function kickoff(ctx: CurateContext, intent: string, attachments: PromptAttachment[] = []): Promise<CurateEnvelope> {
  if (intent.trim().length === 0) {
    return failed('missing-content', 'Say what to record: brv curate "<what you learned>".');
  }
  if (Buffer.byteLength(intent, 'utf8') > MAX_INTENT_BYTES) {
    return failed('too-large', `The intent is over ${MAX_INTENT_BYTES / 1024} KiB. Summarize what to record.`);
  }
  await ctx.sessions.prune();
  const session = await ctx.sessions.create(intent, attachments);
  const domains = await ctx.store.listDomains(await ctx.store.snapshot(ctx.branch));
  return {
    ok: true,
    status: 'needs-llm-step',
    sessionId: session.id,
    step: 'generate-html',
    prompt: buildGeneratePrompt(intent, domains, attachments),
  };
}

/**
 * `selfDriven`: brv drives the model itself (src/curate/auto.ts), so a path-exists correction asks for
 * a new path unless the person allowed `overwrite`.
 */
export async function continueSession(
  ctx: CurateContext,
  sessionId: string,
  body: string,
  overwrite: boolean,
  selfDriven = false,
): Promise<CurateEnvelope> {
  mark('curate: protocol loaded');
  const session = await ctx.sessions.load(sessionId);
  mark('curate: session loaded');
  if (!session) {
    return failed(
      'unknown-session',
      `No curate session "${sessionId}" (it may have finished, expired after 24 hours, or never existed). Start again with brv curate "<intent>".`,
    );
  }
  if (body.trim().length === 0) {
    return failed('empty-response', 'The response is empty. Send the JSON envelope {"html": "<bv-topic …>", "meta": {…}}.', session.id);
  }
  const parsed = parseResponseBody(body);
  if (!parsed.ok) return failed(parsed.kind, parsed.message, session.id);

  session.attempts += 1;
  session.lastResponse = body;
  const result = await writeTopic(ctx.store, parsed.html, parsed.meta, {
    branch: ctx.branch,
    overwrite,
    sessionId: session.id,
    agent: ctx.agent,
    reviewRemovals: selfDriven,
    ...(ctx.model ? { model: ctx.model } : {}),
  });
  if (result.ok) {
    await ctx.sessions.remove(session.id);
    return doneEnvelope(result);
  }
  if (session.attempts >= MAX_ATTEMPTS) {
    await ctx.sessions.remove(session.id);
    const cap: CurateError = {
      kind: 'retry-cap-exceeded',
      message: `Curate session exceeded ${MAX_ATTEMPTS - 1} corrections; it is closed. Start a new one with brv curate "<intent>".`,
    };
    return { ok: false, status: 'failed', errors: [cap, ...result.errors] };
  }
  session.step = 'awaiting-correct';
  await ctx.sessions.save(session);
  const domains = await ctx.store.listDomains(await ctx.store.snapshot(ctx.branch));
  return {
    ok: false,
    status: 'needs-llm-step',
    sessionId: session.id,
    step: 'correct-html',
    prompt: buildCorrectionPrompt(session.userIntent, body, result.errors, domains, {
      attachments: session.attachments,
      noOverwrite: selfDriven && !overwrite,
    }),
    errors: result.errors,
  };
}

async function oneShot(
  ctx: CurateContext,
  htmlFile: string,
  metaJson: string | undefined,
  overwrite: boolean,
  stdin: Uint8Array | undefined,
): Promise<CurateEnvelope> {
  let meta;
  if (metaJson !== undefined) {
    let value: unknown;
    try {
      value = JSON.parse(metaJson);
    } catch {
      return failed('invalid-response-format', '--meta must be a JSON object, e.g. \'{"impact":"low","reason":"…"}\'.');
    }
    const parsed = parseMeta(value);
    if (!parsed.ok) return failed('invalid-response-format', parsed.message);
    meta = parsed.meta;
  }
  const read =
    htmlFile === '-' && stdin ? decodeInput(stdin, 'The HTML on standard input') : await readInputFile(htmlFile, undefined, 'html-file');
  if (!read.ok) return failed(read.kind, read.message);
  const result = await writeTopic(ctx.store, read.text, meta, { branch: ctx.branch, overwrite, agent: ctx.agent });
  return result.ok ? doneEnvelope(result) : { ok: false, status: 'failed', errors: result.errors };
}

function doneEnvelope(result: Extract<WriteResult, { ok: true }>): CurateEnvelope {
  return {
    ok: true,
    status: 'done',
    filePath: result.filePath,
    topicPath: result.topicPath,
    type: result.type,
    ...(result.commit ? { commit: result.commit } : {}),
    ...(result.unchanged ? { unchanged: true } : {}),
    ...(result.warnings.length > 0 ? { warnings: result.warnings } : {}),
    ...(result.review ? { review: { id: result.review.id, gated: result.review.gated } } : {}),
    ...(result.review?.gated ? { held: true } : {}),
    ...(result.removed ? { removed: result.removed } : {}),
  };
}
