import { parseRelated } from '../../topic/related.js';
import type { TopicPath } from '../../topic/types.js';

/** What dream reads of one topic: enough to compare it with others, without the HTML toolchain. */
export interface ScannedTopic {
  path: TopicPath;
  blob: string;
  title: string;
  summary: string;
  /** Title, summary, tags, keywords and the text of the body, tags removed, entities decoded (bounded). */
  text: string;
  /** Topic paths named by `related` (`@a/b.html` or a bare path: folders too, compared by path). */
  related: string[];
  /** Files the topic cites in `<bv-files>` (one per `<li>`, the `<code>` text when there is one). */
  files: string[];
  facts: ScannedFact[];
}

export interface ScannedFact {
  /** The subject as written (`access_token_ttl`). */
  subject: string;
  /** `value`, else the fact's text. */
  value: string;
}

/** Text beyond this is not compared: a topic's first 64 KiB say what it is about. */
const MAX_TEXT_CHARS = 64 * 1024;
const MAX_FILES = 200;
const MAX_FACTS = 200;

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' };

/** Decodes the entities brv's canonical form writes (and numeric ones); others stay as written. */
function decodeEntities(text: string): string {
  if (!text.includes('&')) return text;
  return text.replace(/&(#x[0-9a-f]{1,6}|#\d{1,7}|[a-z]{2,6});/gi, (whole, name: string) => {
    if (name[0] === '#') {
      const code = name[1] === 'x' || name[1] === 'X' ? parseInt(name.slice(2), 16) : parseInt(name.slice(1), 10);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
    }
    return ENTITIES[name.toLowerCase()] ?? whole;
  });
}

const ATTRIBUTE = /([a-zA-Z_:][-a-zA-Z0-9_:.]*)(?:\s*=\s*(?:"([^"]*)"|'([^']*)'|([^\s"'=<>`]+)))?/g;

function attributes(tagSource: string): Map<string, string> {
  const found = new Map<string, string>();
  ATTRIBUTE.lastIndex = 0;
  for (let m = ATTRIBUTE.exec(tagSource); m; m = ATTRIBUTE.exec(tagSource)) {
    const name = m[1]!.toLowerCase();
    if (!found.has(name)) found.set(name, decodeEntities(m[2] ?? m[3] ?? m[4] ?? ''));
  }
  return found;
}

function plainText(html: string): string {
  return decodeEntities(html.replace(/<!--[\s\S]*?-->/g, ' ').replace(/<[^>]*>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

/** A cited file as a path in the project: `./src/a.ts` → `src/a.ts`; undefined for what is no path (a URL, a glob, prose). */
function citedFile(text: string): string | undefined {
  let file = text.trim().replace(/^\.\//, '').replace(/^\/+/, '');
  // "src/a.ts (the parser)", "src/a.ts:12": the path is the first word, without a line number.
  file = file.split(/\s+/)[0]!.replace(/:\d+(?::\d+)?$/, '');
  if (file === '' || file.length > 300 || /[*?[\]{}\\]|^[a-z][a-z0-9+.-]*:|(^|\/)\.\.?(\/|$)/i.test(file)) return undefined;
  if (!/[./]/.test(file)) return undefined;
  return file.replace(/\/+$/, '');
}

/**
 * Reads what dream needs from a topic blob by scanning it as text: brv stores topics in one canonical
 * form, so the root's attributes, `<bv-files>` items and `<bv-fact>`s are found without a parser
 * (10,000 topics in well under a second). Undefined when the blob has no `<bv-topic>` root. Nothing
 * here is trusted or written back: proposals parse and validate the topics they change.
 */
export function scanTopic(path: TopicPath, blob: string, html: string): ScannedTopic | undefined {
  const open = /<bv-topic\b((?:[^>"']|"[^"]*"|'[^']*')*)>/i.exec(html);
  if (!open) return undefined;
  const attrs = attributes(open[1]!);
  const title = attrs.get('title') ?? '';
  const summary = attrs.get('summary') ?? '';
  const files: string[] = [];
  for (const block of html.matchAll(/<bv-files\b[^>]*>([\s\S]*?)<\/bv-files>/gi)) {
    for (const item of block[1]!.matchAll(/<li\b[^>]*>([\s\S]*?)<\/li>/gi)) {
      const code = /<code\b[^>]*>([\s\S]*?)<\/code>/i.exec(item[1]!);
      const file = citedFile(plainText(code ? code[1]! : item[1]!));
      if (file && !files.includes(file) && files.length < MAX_FILES) files.push(file);
    }
  }
  const facts: ScannedFact[] = [];
  for (const fact of html.matchAll(/<bv-fact\b([^>]*)>([\s\S]*?)<\/bv-fact>/gi)) {
    const factAttrs = attributes(fact[1]!);
    const subject = factAttrs.get('subject')?.trim();
    if (!subject || facts.length >= MAX_FACTS) continue;
    facts.push({ subject, value: (factAttrs.get('value') ?? plainText(fact[2]!)).trim() });
  }
  const related = parseRelated(attrs.get('related'))
    .filter((ref) => ref.ok)
    .map((ref) => (ref as { path: string }).path);
  const body = html.slice(open.index + open[0].length, open.index + open[0].length + MAX_TEXT_CHARS * 2);
  const text = [title, summary, attrs.get('tags') ?? '', attrs.get('keywords') ?? '', plainText(body)].join(' ').slice(0, MAX_TEXT_CHARS);
  return { path, blob, title, summary, text, related, files, facts };
}
