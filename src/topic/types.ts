import type { Element } from 'hast';

import type { TOPIC_ERROR_KINDS } from './error-kinds.js';

/** The kinds of error topic validation reports (see `error-kinds.ts` for their meanings). */
export type TopicErrorKind = keyof typeof TOPIC_ERROR_KINDS;

export interface TopicError {
  readonly kind: TopicErrorKind;
  readonly message: string;
  /** The element the error is about, e.g. `bv-rule` or `img`. */
  readonly tag?: string;
  /** HTML attribute name, e.g. `onclick` or `severity`. */
  readonly attribute?: string;
  /** Where the element (or text) the error is about starts in the HTML as sent: 1-based line and column. */
  readonly line?: number;
  readonly column?: number;
}

declare const topicPathBrand: unique symbol;
/** A normalized, safe topic path such as `security/auth` (no `.html`). Only `normalizeTopicPath` makes one. */
export type TopicPath = string & { readonly [topicPathBrand]: true };

export type RelatedRef =
  | { readonly ok: true; readonly ref: string; readonly path: TopicPath; readonly explicitTopic: boolean }
  | { readonly ok: false; readonly ref: string; readonly reason: string };

export interface ParsedTopic {
  readonly path: TopicPath;
  readonly title: string;
  readonly summary?: string;
  readonly tags: string[];
  readonly keywords: string[];
  readonly related: RelatedRef[];
  /** The `<bv-topic>` element as parsed. */
  readonly root: Element;
  readonly canonicalHtml: string;
  /** What validation accepted but changed (HTML comments dropped), for the caller to report. */
  readonly warnings: readonly string[];
}

export type TopicValidation = { ok: true; topic: ParsedTopic } | { ok: false; errors: TopicError[] };
