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
