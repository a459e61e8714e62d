import { APICallError, embedMany, LoadAPIKeyError, RetryError, streamText, type EmbeddingModel, type LanguageModel } from 'ai';
import { BrvError } from '../../base/errors.js';
import { printable } from '../../topic/printable.js';
import { DEFAULT_POLICY, type CallPolicy } from './policy.js';
import { costOf, type Price } from './prices.js';

/** What one command spent: the `usage` of `--format json` and the token line on stderr. */
export interface LlmUsage {
  provider: string;
  model: string;
  requests: number;
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  embeddingTokens: number;
  /** US dollars at the catalog's list price; null when brv knows no price for the model. */
  costUsd: number | null;
}

export interface GenerateRequest {
  system?: string;
  prompt: string;
  maxOutputTokens?: number;
  temperature?: number;
  /** Cancels the call (Ctrl-C): `llm-cancelled`. */
  signal?: AbortSignal;
  /** Streaming progress: characters received so far. */
  onText?: (received: number) => void;
}

export interface ClientModels {
  language: LanguageModel;
  /** Loaded on first use: only hybrid retrieval needs it. */
  embedding?: () => Promise<EmbeddingModel>;
}

export interface ClientIdentity {
  provider: string;
  model: string;
  embeddingModel?: string;
  /** Where the API key came from (never the key): shown by `brv providers list`. */
  keySource?: string;
}

/**
 * A connected model, as the features that use one (self-driven curate, answers, dream, hybrid
 * retrieval) see it: text in, text out, embeddings, with timeouts, retries, a reply cap, typed
 * errors that never carry the key, and a running tally of tokens and cost.
 */
export class LlmClient {
  private readonly tally = { requests: 0, inputTokens: 0, outputTokens: 0, embeddingTokens: 0 };

  constructor(
    readonly identity: ClientIdentity,
    private readonly models: ClientModels,
    private readonly policy: CallPolicy = DEFAULT_POLICY,
    /** Strings to redact from every error message (the API key). */
    private readonly secrets: readonly string[] = [],
    private readonly price?: Price,
  ) {}

  get hasEmbeddings(): boolean {
    return this.models.embedding !== undefined;
  }

  usage(): LlmUsage {
    const { requests, inputTokens, outputTokens, embeddingTokens } = this.tally;
    return {
      provider: this.identity.provider,
      model: this.identity.model,
      requests,
      inputTokens,
      outputTokens,
      totalTokens: inputTokens + outputTokens,
      embeddingTokens,
      costUsd: this.price ? costOf(this.price, inputTokens, outputTokens) : null,
    };
  }

  /** One completion, streamed (for progress and the idle timeout); the whole text when it ends. */
  async generate(request: GenerateRequest): Promise<string> {
    const guard = new CallGuard(this.policy.timeoutMs, request.signal);
    let text = '';
    let tooLarge = false;
    try {
      this.tally.requests += 1;
      const result = streamText({
        model: this.models.language,
        system: request.system,
        prompt: request.prompt,
        maxRetries: this.policy.maxRetries,
        abortSignal: guard.signal,
        // Errors arrive as stream parts and are thrown below; the SDK's default handler would print them.
        onError: () => {},
        ...(request.maxOutputTokens !== undefined ? { maxOutputTokens: request.maxOutputTokens } : {}),
        ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      });
      for await (const part of result.fullStream) {
        guard.alive();
        if (part.type === 'text-delta') {
          text += part.text;
          if (text.length > this.policy.maxReplyChars) {
            tooLarge = true;
            guard.stop();
            break;
          }
          request.onText?.(text.length);
        } else if (part.type === 'error') {
          throw part.error;
        } else if (part.type === 'finish') {
          this.count(part.totalUsage);
        } else if (part.type === 'abort') {
          throw new Error('aborted');
        }
      }
    } catch (error) {
      if (!tooLarge) throw this.failure(error, guard);
    } finally {
      guard.dispose();
    }
    if (tooLarge) {
      throw new BrvError(
        'llm-bad-reply',
        `${this.name()} sent a reply over ${this.policy.maxReplyChars.toLocaleString('en-US')} characters; brv stopped reading it.`,
      );
    }
    if (text.trim().length === 0) throw new BrvError('llm-bad-reply', `${this.name()} sent an empty reply.`);
    return text;
  }

  /** Embeddings of `texts`, in order (batched by the SDK as the provider allows). */
  async embed(texts: readonly string[], signal?: AbortSignal): Promise<number[][]> {
    if (!this.models.embedding) {
      throw new BrvError(
        'no-provider',
        `${this.identity.provider} has no embedding model set: brv providers connect ${this.identity.provider} --embedding-model <id>.`,
      );
    }
    if (texts.length === 0) return [];
    const guard = new CallGuard(this.policy.timeoutMs, signal);
    try {
      const model = await this.models.embedding();
      this.tally.requests += 1;
      const result = await embedMany({ model, values: [...texts], maxRetries: this.policy.maxRetries, abortSignal: guard.signal });
      this.tally.embeddingTokens += result.usage?.tokens ?? 0;
      if (
        result.embeddings.length !== texts.length ||
        result.embeddings.some((e) => !Array.isArray(e) || e.some((x) => !Number.isFinite(x)))
      ) {
        throw new BrvError('llm-bad-reply', `${this.name()} returned embeddings brv cannot use (wrong count or not numbers).`);
      }
      return result.embeddings;
    } catch (error) {
      throw this.failure(error, guard);
    } finally {
      guard.dispose();
    }
  }

  private count(usage: { inputTokens?: number | undefined; outputTokens?: number | undefined } | undefined): void {
    this.tally.inputTokens += usage?.inputTokens ?? 0;
    this.tally.outputTokens += usage?.outputTokens ?? 0;
  }

  private name(): string {
    return `${this.identity.provider} (${this.identity.model})`;
  }

  /** Any failure of a call as a typed error whose message names the provider and never the key. */
  private failure(error: unknown, guard: CallGuard): BrvError {
    if (error instanceof BrvError) return error;
    if (guard.cancelled) return new BrvError('llm-cancelled', 'The model call was cancelled; nothing was written.');
    if (guard.timedOut) {
      return new BrvError(
        'llm-timeout',
        `${this.name()} sent nothing for ${Math.round(this.policy.timeoutMs / 1000)} s; brv gave up (raise it with brv settings set llm.timeout <seconds>).`,
      );
    }
    const { kind, message } = classify(error, this.name(), this.policy.maxRetries);
    return new BrvError(kind, this.redact(message));
  }

  private redact(message: string): string {
    let text = message;
    for (const secret of this.secrets) if (secret.length >= 4) text = text.split(secret).join('[redacted]');
    // Providers echo part of a refused key ("Incorrect API key provided: sk-abc…xyz").
    text = text.replace(/\b(?:sk|pk|key|api|gsk|xai|csk)[-_][A-Za-z0-9_*.-]{6,}/gi, '[redacted]');
    return printable(text.replace(/\s+/g, ' ')).slice(0, 600);
  }
}

/** The error kind and message of a failed call, from what the SDK threw. */
function classify(error: unknown, name: string, retries: number): { kind: BrvError['kind']; message: string } {
  const afterRetries = RetryError.isInstance(error) && error.reason === 'maxRetriesExceeded';
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  const tries = afterRetries ? ` (after ${retries + 1} attempts)` : '';
  if (LoadAPIKeyError.isInstance(cause)) return { kind: 'missing-api-key', message: `${name} needs an API key: ${errorText(cause)}` };
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    const said = providerMessage(cause);
    if (status === 401 || status === 403) return { kind: 'llm-auth', message: `${name} refused the API key (${status})${said}.` };
    if (status === 429) return { kind: 'llm-rate-limited', message: `${name} answered 429 Too Many Requests${tries}${said}.` };
    if (status === undefined || status >= 500) {
      return {
        kind: 'llm-unavailable',
        message: `${name} failed${status ? ` (${status})` : ''}${tries}${said || `: ${errorText(cause)}`}.`,
      };
    }
    return { kind: 'llm-rejected', message: `${name} refused the request (${status})${said}.` };
  }
  const text = errorText(cause);
  if (/fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|socket|network|terminated/i.test(text + causeCode(cause))) {
    return { kind: 'llm-unavailable', message: `${name} could not be reached${tries}: ${text}${causeCode(cause)}.` };
  }
  return { kind: 'llm-bad-reply', message: `${name} sent a reply brv cannot read: ${text}` };
}

function providerMessage(error: APICallError): string {
  const body = error.responseBody;
  if (!body) return error.message ? `: ${error.message}` : '';
  try {
    const parsed = JSON.parse(body) as { error?: { message?: unknown } | string; message?: unknown };
    const message = typeof parsed.error === 'string' ? parsed.error : (parsed.error?.message ?? parsed.message);
    if (typeof message === 'string') return `: ${message.slice(0, 300)}`;
  } catch {
    // Not JSON: the first line will do.
  }
  return `: ${body.split('\n')[0]!.slice(0, 300)}`;
}

function errorText(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function causeCode(error: unknown): string {
  const cause = (error as { cause?: { code?: unknown } } | undefined)?.cause;
  return typeof cause?.code === 'string' ? ` (${cause.code})` : '';
}

/**
 * Cancellation and the idle timeout of one call: aborts the request when the caller cancels, or when
 * nothing arrived for `timeoutMs` (reset by every streamed part); also a total cap of ten idle periods.
 */
class CallGuard {
  private readonly controller = new AbortController();
  private idle: NodeJS.Timeout | undefined;
  private readonly total: NodeJS.Timeout;
  timedOut = false;
  cancelled = false;
  readonly signal: AbortSignal;
  private readonly onCancel = () => {
    this.cancelled = true;
    this.controller.abort();
  };

  constructor(
    private readonly timeoutMs: number,
    private readonly outer: AbortSignal | undefined,
  ) {
    this.signal = this.controller.signal;
    if (outer?.aborted) this.onCancel();
    outer?.addEventListener('abort', this.onCancel, { once: true });
    this.alive();
    this.total = setTimeout(() => this.expire(), timeoutMs * 10);
  }

  alive(): void {
    clearTimeout(this.idle);
    this.idle = setTimeout(() => this.expire(), this.timeoutMs);
  }

  stop(): void {
    this.controller.abort();
  }

  dispose(): void {
    clearTimeout(this.idle);
    clearTimeout(this.total);
    this.outer?.removeEventListener('abort', this.onCancel);
  }

  private expire(): void {
    this.timedOut = true;
    this.controller.abort();
  }
}
