// Kept apart from client.ts so that reading settings loads no ai SDK.

/** How calls behave: from the `llm.*` settings (src/settings/registry.ts). */
export interface CallPolicy {
  /** No answer, or no new streamed text, for this long: `llm-timeout`. */
  timeoutMs: number;
  /** Retries of a failed request that can recover (408, 429, 5xx, a connection lost mid-request; never a refused one): 1 s, 2 s, 4 s … or Retry-After up to 30 s. */
  maxRetries: number;
  /** A reply longer than this is cut off and refused (`llm-bad-reply`): a provider cannot make brv hold gigabytes. */
  maxReplyChars: number;
}

export const DEFAULT_POLICY: CallPolicy = { timeoutMs: 60_000, maxRetries: 2, maxReplyChars: 2_000_000 };
