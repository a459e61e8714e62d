import type { Element } from 'hast';

export const TOPIC_ERROR_KINDS = [
  'missing-bv-topic',
  'multiple-bv-topic',
  'missing-path-attribute',
  'unsafe-path',
  'unknown-element',
  'attribute-validation',
  'unsafe-html',
  'invalid-nesting',
  'content-outside-topic',
  'too-large',
] as const;

export type TopicErrorKind = (typeof TOPIC_ERROR_KINDS)[number];

export interface TopicError {
  readonly kind: TopicErrorKind;
  readonly message: string;
  /** The element the error is about, e.g. `bv-rule` or `img`. */
  readonly tag?: string;
  /** HTML attribute name, e.g. `onclick` or `severity`. */
  readonly attribute?: string;
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
}

export type TopicValidation = { ok: true; topic: ParsedTopic } | { ok: false; errors: TopicError[] };
