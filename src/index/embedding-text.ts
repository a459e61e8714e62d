/**
 * The text a topic is embedded as (hybrid retrieval, dense.ts): its rendered markdown without the
 * markup and the attribute lists (`(subject=D1:4)`), whitespace collapsed, capped. One vector per
 * topic, not per passage: a topic is curated to be about one thing, and one vector per blob keeps the
 * first hybrid query of a large tree at one embedding call per topic. The cap keeps a long topic
 * within what small embedding models read (~512 tokens); its beginning (title, summary, first
 * facts) is what says what it is about. Changing this function changes every cached vector's
 * meaning: bump EMBEDDING_TEXT_VERSION (it is part of the cache key).
 */
export const EMBEDDING_TEXT_VERSION = 1;
export const MAX_EMBEDDING_CHARS = 2000;

export function embeddingText(markdown: string): string {
  const text = markdown
    .split('\n')
    .map((line) =>
      line
        .replace(/^\s*(?:#+|>|[-+*]|\d+\.)\s+/, '')
        .replace(/\((?:[\w-]+=[^)]*)\)/g, '')
        .replace(/[*_`]+/g, '')
        .trim(),
    )
    .filter((line) => line !== '')
    .join('\n')
    .replace(/[ \t]+/g, ' ');
  if (text.length <= MAX_EMBEDDING_CHARS) return text;
  const cut = text.lastIndexOf(' ', MAX_EMBEDDING_CHARS);
  return text.slice(0, cut > MAX_EMBEDDING_CHARS / 2 ? cut : MAX_EMBEDDING_CHARS);
}
