import { BrvError } from '../base/errors.js';
import type { GenerateRequest } from '../models/llm/client.js';
import type { CurateEnvelope, CurateError } from './envelope.js';
import { buildCorrectionPrompt, type PromptAttachment } from './prompts.js';
import { continueSession, kickoff, MAX_ATTEMPTS, type CurateContext } from './protocol.js';

/**
 * Self-driven curate: brv's own protocol (kickoff → generate prompt → model → continueSession with
 * the raw reply → correction prompt → …) with brv calling the model instead of an agent. The reply
 * goes through the same parser, validator, writer and review policy as an agent's; nothing the model
 * says is executed, and it can only propose the one topic the protocol writes.
 */

/** The model as self-driven curate uses it (an LlmClient). */
export interface TextModel {
  generate(request: GenerateRequest): Promise<string>;
}

/** Progress of a self-driven curate, for the front end to show. */
export type CurateAutoEvent =
  /** A model call starts: `attempt` of `of`; a correction carries the errors it asks the model to fix. */
  | { event: 'step'; step: 'generate-html' | 'correct-html'; attempt: number; of: number; errors: CurateError[] }
  /** Characters of the reply received so far (streamed). */
  | { event: 'received'; attempt: number; characters: number }
  /** The reply is being validated and written. */
  | { event: 'writing'; attempt: number };

export interface CurateAutoOptions {
  intent: string;
  attachments: PromptAttachment[];
  overwrite: boolean;
  signal?: AbortSignal;
  onProgress?: (event: CurateAutoEvent) => void;
}

/**
 * Model calls per curate. The protocol counts only replies it could parse as attempts (a reply that
 * is not JSON costs an agent nothing); brv pays for every call, so every reply counts here, and the
 * protocol's own cap (MAX_ATTEMPTS parsed replies) can never be the later one.
 */
const MAX_MODEL_CALLS = MAX_ATTEMPTS;

/** The previous reply quoted in a correction prompt: a reply refused for its size is not sent back whole. */
const QUOTED_REPLY_CHARS = 20_000;

export async function runCurateAuto(
  ctx: CurateContext,
  model: TextModel,
  options: CurateAutoOptions,
): Promise<{ envelope: CurateEnvelope; attempts: number }> {
  const { signal, onProgress } = options;
  const cancelled = () => new BrvError('llm-cancelled', 'The curate was cancelled; nothing was written.');
  if (signal?.aborted) throw cancelled();
  let envelope = await kickoff(ctx, options.intent, options.attachments);
  if (envelope.status !== 'needs-llm-step') return { envelope, attempts: 0 };
  const sessionId = envelope.sessionId!;
  let prompt = envelope.prompt!;
  let step: 'generate-html' | 'correct-html' = 'generate-html';
  let errors: CurateError[] = [];
  let attempts = 0;
  let finished = false;
  try {
    for (;;) {
      attempts += 1;
      onProgress?.({ event: 'step', step, attempt: attempts, of: MAX_MODEL_CALLS, errors });
      const attempt = attempts;
      const reply = await model.generate({
        prompt,
        signal,
        onText: (characters) => onProgress?.({ event: 'received', attempt, characters }),
      });
      if (signal?.aborted) throw cancelled();
      onProgress?.({ event: 'writing', attempt });
      envelope = await continueSession(ctx, sessionId, reply, options.overwrite, true);
      if (envelope.status === 'done') {
        finished = true;
        return { envelope, attempts };
      }
      // A reply the protocol could not parse leaves the session open (sessionId kept) without a prompt:
      // the correction prompt is built here from the same errors; anything else that failed is final.
      const unparsed = envelope.status === 'failed' && envelope.sessionId !== undefined;
      if (envelope.status === 'failed' && !unparsed) return { envelope, attempts };
      errors = envelope.errors ?? [];
      if (attempts >= MAX_MODEL_CALLS) {
        const cap: CurateError = {
          kind: 'retry-cap-exceeded',
          message: `The model did not produce a valid topic in ${MAX_MODEL_CALLS} attempts; nothing was written. Rephrase the intent, or try another model (brv model switch).`,
        };
        return { envelope: { ok: false, status: 'failed', errors: [cap, ...errors] }, attempts };
      }
      step = 'correct-html';
      if (envelope.status === 'needs-llm-step') {
        prompt = envelope.prompt!;
      } else {
        const domains = await ctx.store.listDomains(await ctx.store.snapshot(ctx.branch));
        const quoted =
          reply.length > QUOTED_REPLY_CHARS
            ? `${reply.slice(0, QUOTED_REPLY_CHARS)}\n[… ${reply.length - QUOTED_REPLY_CHARS} more characters not shown]`
            : reply;
        prompt = buildCorrectionPrompt(options.intent, quoted, errors, domains, {
          attachments: options.attachments,
          noOverwrite: !options.overwrite,
        });
      }
    }
  } finally {
    // Whatever ended the run (a final failure, a model error, Ctrl-C), its session goes with it.
    if (!finished) await ctx.sessions.remove(sessionId).catch(() => {});
  }
}
