// Kept apart from client.ts so that reading settings loads no ai SDK.

/** How calls behave: from the `llm.*` settings (src/settings/registry.ts). */
export interface CallPolicy {
  /** No answer, or no new streamed text, for this long: `llm-timeout`. */
  timeoutMs: number;
  /** Retries of a failed request (429, 5xx, network), with the SDK's exponential backoff (it honours Retry-After). */
  maxRetries: number;
  /** A reply longer than this is cut off and refused (`llm-bad-reply`): a provider cannot make brv hold gigabytes. */
  maxReplyChars: number;
}

export const DEFAULT_POLICY: CallPolicy = { timeoutMs: 60_000, maxRetries: 2, maxReplyChars: 2_000_000 };
