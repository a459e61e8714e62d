/**
 * Runs of whitespace as one space: `text.replace(/\s+/g, ' ')`, written so that a lone space (nearly
 * every gap in prose) is not a match: ~5× faster on the megabytes an index build of a fetched tree
 * collapses (docs/archive/bench-notebook-2026.md, "Cold path").
 */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s{2,}|[^\S ]/g, ' ');
}
