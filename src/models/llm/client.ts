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
  /** The server's URL when the connection names one (a local server): said when it cannot be reached. */
  baseUrl?: string;
  /** Where the connection was chosen: an error's fix names the setting to change (`env`: BRV_LLM_*). */
  from?: 'env' | 'config';
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

  /**
   * One completion, streamed (for progress and the idle timeout); the whole text when it ends. A
   * failure before any text arrived is tried again when it can recover (see `retryDelay`).
   */
  async generate(request: GenerateRequest): Promise<string> {
    return this.retrying(request.signal, () => this.generateOnce(request));
  }

  private async generateOnce(request: GenerateRequest): Promise<string> {
    const guard = new CallGuard(this.policy.timeoutMs, request.signal);
    let text = '';
    let tooLarge = false;
    try {
      this.tally.requests += 1;
      const result = streamText({
        model: this.models.language,
        system: request.system,
        prompt: request.prompt,
        // brv retries itself (retrying): the SDK's retries would also repeat a refused connection.
        maxRetries: 0,
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
      if (!tooLarge) throw new CallFailure(error, guard, text.length > 0);
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
    return this.retrying(signal, () => this.embedOnce(texts, signal));
  }

  private async embedOnce(texts: readonly string[], signal: AbortSignal | undefined): Promise<number[][]> {
    const guard = new CallGuard(this.policy.timeoutMs, signal);
    try {
      const model = await this.models.embedding!();
      this.tally.requests += 1;
      const result = await embedMany({ model, values: [...texts], maxRetries: 0, abortSignal: guard.signal });
      this.tally.embeddingTokens += result.usage?.tokens ?? 0;
      if (
        result.embeddings.length !== texts.length ||
        result.embeddings.some((e) => !Array.isArray(e) || e.some((x) => !Number.isFinite(x)))
      ) {
        throw new BrvError('llm-bad-reply', `${this.name()} returned embeddings brv cannot use (wrong count or not numbers).`);
      }
      return result.embeddings;
    } catch (error) {
      throw new CallFailure(error, guard, false);
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

  /**
   * Runs one call, again after a failure that can recover (a 429, a 5xx, a connection reset before
   * any text arrived) while `llm.retries` allows, waiting as `retryDelay` says; anything else (a
   * refused connection, an unknown host, a refused key) fails at once. Every failure leaves as a
   * typed error.
   */
  private async retrying<T>(signal: AbortSignal | undefined, call: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await call();
      } catch (error) {
        if (!(error instanceof CallFailure)) throw error;
        const wait = attempt <= this.policy.maxRetries && !error.streamed ? retryDelay(error.cause, attempt) : undefined;
        if (wait === undefined || error.guard.cancelled || error.guard.timedOut || signal?.aborted) throw this.failure(error, attempt);
        if (!(await pause(wait, signal))) throw new BrvError('llm-cancelled', 'The model call was cancelled; nothing was written.');
      }
    }
  }

  /** A failed call as a typed error whose message names the provider, says what to do, and never carries the key. */
  private failure({ cause: error, guard }: CallFailure, attempts: number): BrvError {
    if (error instanceof BrvError) return error;
    if (guard.cancelled) return new BrvError('llm-cancelled', 'The model call was cancelled; nothing was written.');
    if (guard.timedOut) {
      return new BrvError(
        'llm-timeout',
        `${this.name()} sent nothing for ${Math.round(this.policy.timeoutMs / 1000)} s; brv gave up (raise it with brv settings set llm.timeout <seconds>).`,
      );
    }
    const { kind, message } = classify(error, this.name(), attempts);
    const answered = APICallError.isInstance(error) && error.statusCode !== undefined;
    return new BrvError(kind, `${this.redact(message)}${this.fix(kind, answered)}`);
  }

  /** What to do about a failure of this connection (`answered`: the server answered, with a 5xx): the command or setting that changes it. */
  private fix(kind: BrvError['kind'], answered: boolean): string {
    const { provider, baseUrl, from } = this.identity;
    if (kind === 'llm-unavailable') {
      const where = answered
        ? `Try again later, or point brv at another ${baseUrl ? 'server' : 'provider'}`
        : baseUrl
          ? `Start the server at ${urlShown(baseUrl)}, or point brv at another`
          : 'Check the network, or connect another provider';
      const how =
        from === 'env'
          ? baseUrl
            ? ' (BRV_LLM_BASE_URL; BRV_LLM_PROVIDER=none turns the model off)'
            : ' (BRV_LLM_PROVIDER; BRV_LLM_PROVIDER=none turns the model off)'
          : baseUrl
            ? `: brv providers connect ${provider} --base-url <url> (brv providers check tests it; brv providers disconnect ${provider} stops using it)`
            : `: brv providers connect <provider> (brv providers check tests it; brv providers disconnect ${provider} stops using it)`;
      return ` ${where}${how}.`;
    }
    if (kind === 'llm-auth') {
      return from === 'env'
        ? ' Set a valid key in BRV_LLM_API_KEY.'
        : ` Store a valid key with brv providers connect ${provider} --api-key - (read from standard input).`;
    }
    if (kind === 'llm-rejected') {
      return from === 'env'
        ? ' Check BRV_LLM_MODEL.'
        : ` Check the model: brv providers model list ${provider}, brv providers model switch <model>.`;
    }
    if (kind === 'llm-rate-limited') return ' Wait and try again, or raise brv settings set llm.retries <n>.';
    return '';
  }

  private redact(message: string): string {
    let text = message;
    for (const secret of this.secrets) if (secret.length >= 4) text = text.split(secret).join('[redacted]');
    // Providers echo part of a refused key ("Incorrect API key provided: sk-abc…xyz").
    text = text.replace(/\b(?:sk|pk|key|api|gsk|xai|csk)[-_][A-Za-z0-9_*.-]{6,}/gi, '[redacted]');
    return printable(text.replace(/\s+/g, ' ')).slice(0, 600);
  }
}

/** A call that failed, with what it had received: the retry loop decides whether to try again. */
class CallFailure extends Error {
  constructor(
    override readonly cause: unknown,
    readonly guard: CallGuard,
    /** Text had arrived: a retry would repeat it (never retried). */
    readonly streamed: boolean,
  ) {
    super(errorText(cause));
  }
}

/** The longest wait brv accepts between attempts (a Retry-After asking for longer fails at once, saying so). */
const MAX_RETRY_WAIT_MS = 30_000;
/** Errors of a connection that was made and then lost: the next one may work. A refused connection or an unknown host will not. */
const TRANSIENT_NETWORK = /ECONNRESET|UND_ERR_SOCKET|EPIPE|socket hang up|other side closed/i;

/**
 * How long to wait before trying a failed call again, or undefined when trying again cannot help:
 * 408, 429 and 5xx answers (Retry-After honoured up to 30 s) and a connection lost mid-request;
 * otherwise 1 s, 2 s, 4 s … (at most 8 s) for attempt 1, 2, 3 ….
 */
function retryDelay(error: unknown, attempt: number): number | undefined {
  const backoff = Math.min(8_000, 1_000 * 2 ** (attempt - 1));
  if (APICallError.isInstance(error) && error.statusCode !== undefined) {
    const status = error.statusCode;
    if (status !== 408 && status !== 429 && status < 500) return undefined;
    const asked = retryAfterMs(error.responseHeaders);
    if (asked === undefined) return backoff;
    return asked <= MAX_RETRY_WAIT_MS ? asked : undefined;
  }
  return TRANSIENT_NETWORK.test(`${errorText(error)}${causeCode(error)}`) ? backoff : undefined;
}

function retryAfterMs(headers: Record<string, string> | undefined): number | undefined {
  const ms = Number(headers?.['retry-after-ms']);
  if (headers?.['retry-after-ms'] !== undefined && Number.isFinite(ms) && ms >= 0) return ms;
  const value = headers?.['retry-after'];
  if (value === undefined) return undefined;
  const seconds = Number(value);
  if (value.trim() !== '' && Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Waits `ms`; false when `signal` aborted first. */
function pause(ms: number, signal: AbortSignal | undefined): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = (finished: boolean) => {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      resolve(finished);
    };
    const onAbort = () => done(false);
    const timer = setTimeout(() => done(true), ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

/** A base URL as an error shows it: scheme, host, port and path, never a query. */
function urlShown(url: string): string {
  try {
    const parsed = new URL(url);
    return `${parsed.origin}${parsed.pathname}`.replace(/\/+$/, '');
  } catch {
    return '(the configured base URL)';
  }
}

/** The error kind and message of a failed call, from what the SDK threw, after `attempts` tries. */
function classify(error: unknown, name: string, attempts: number): { kind: BrvError['kind']; message: string } {
  const cause = RetryError.isInstance(error) ? error.lastError : error;
  const tries = attempts > 1 ? ` (after ${attempts} attempts)` : '';
  if (LoadAPIKeyError.isInstance(cause)) return { kind: 'missing-api-key', message: `${name} needs an API key: ${errorText(cause)}` };
  if (APICallError.isInstance(cause)) {
    const status = cause.statusCode;
    const said = providerMessage(cause);
    if (status === 401 || status === 403) return { kind: 'llm-auth', message: `${name} refused the API key (${status})${said}.` };
    if (status === 429) return { kind: 'llm-rate-limited', message: `${name} answered 429 Too Many Requests${tries}${said}.` };
    if (status === undefined) return { kind: 'llm-unavailable', message: `${name} could not be reached${tries}: ${withCode(cause)}.` };
    if (status >= 500) return { kind: 'llm-unavailable', message: `${name} failed (${status})${tries}${said}.` };
    return { kind: 'llm-rejected', message: `${name} refused the request (${status})${said}.` };
  }
  const text = errorText(cause);
  if (/fetch failed|ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|socket|network|terminated/i.test(text + causeCode(cause))) {
    return { kind: 'llm-unavailable', message: `${name} could not be reached${tries}: ${withCode(cause)}.` };
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

/** An error's message with its system error code, unless the message already says it. */
function withCode(error: unknown): string {
  const text = errorText(error);
  const code = causeCode(error);
  return text.includes(code.slice(2, -1)) ? text : `${text}${code}`;
}

/** The system error code (ECONNREFUSED …) somewhere down the cause chain (fetch wraps it twice), as ` (CODE)`. */
function causeCode(error: unknown): string {
  let cause = (error as { cause?: unknown } | undefined)?.cause;
  for (let depth = 0; depth < 4 && cause && typeof cause === 'object'; depth++) {
    const code = (cause as { code?: unknown }).code;
    if (typeof code === 'string') return ` (${code})`;
    cause = (cause as { cause?: unknown }).cause;
  }
  return '';
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
