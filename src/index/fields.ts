/**
 * The searchable fields, in the order segments store them. Kept apart from document.ts so the query
 * path (segments, search) loads none of the HTML code that turning a topic into a document needs.
 */
export const FIELDS = ['title', 'path', 'meta', 'key', 'body'] as const;
export type FieldName = (typeof FIELDS)[number];
export const FIELD_COUNT = FIELDS.length;

/** The `path` field's text: a topic path's segments as words (`security/jwt_keys` → `security jwt keys`). */
export function pathFieldText(path: string): string {
  return path
    .split(/[/_-]+/)
    .filter((s) => s !== '')
    .join(' ');
}

/** What the index knows about one topic: field texts to analyse, and filterable facts. */
export interface IndexDocument {
  readonly path: string;
  readonly title: string;
  readonly fields: Readonly<Record<FieldName, string>>;
  /** Distinct YYYY-MM-DD dates from bv-timestamp text and `<time datetime>`, sorted. */
  readonly dates: string[];
  /** Distinct bv-* element names present below the root (bv-topic itself excluded), sorted. */
  readonly kinds: string[];
}

/** A document as a segment stores it: plus the caller's opaque 40-hex id (the topic's blob). */
export type SegmentInput = IndexDocument & { readonly blob: string };
