import type { TopicError, TopicPath } from './types.js';

const MAX_PATH_SEGMENTS = 5;
const MAX_SEGMENT_LENGTH = 64;
const MAX_PATH_LENGTH = 200;

const SEGMENT = /^[\p{L}\p{M}\p{N}_.-]+$/u;
// C0, DEL and C1 controls.
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;

export type PathResult = { ok: true; path: TopicPath } | { ok: false; error: TopicError };

const HINT = 'Use 1-5 segments of letters, digits, "_", "-" or "." separated by "/", like "security/auth".';

function unsafe(raw: string, problem: string): PathResult {
  return { ok: false, error: { kind: 'unsafe-path', attribute: 'path', message: `Topic path ${JSON.stringify(raw)} ${problem}. ${HINT}` } };
}

export function normalizeTopicPath(raw: string): PathResult {
  const trimmed = raw.trim();
  if (CONTROL.test(trimmed)) return unsafe(raw, 'contains a control character');
  if (trimmed.includes('\\')) return unsafe(raw, 'contains a backslash; separate segments with "/"');
  if (trimmed.startsWith('@')) return unsafe(raw, 'starts with "@"; "@" is only for refs in the related attribute, drop it here');
  if (trimmed.startsWith('/')) return unsafe(raw, 'is absolute; drop the leading "/"');
  // NFC so that the same name typed on different systems is one topic.
  const path = trimmed.replace(/\.html$/, '').normalize('NFC');
  if (path === '') return unsafe(raw, 'is empty');
  if (path.endsWith('.html')) return unsafe(raw, 'ends in ".html.html"; name the topic without the extension');
  if ([...path].length > MAX_PATH_LENGTH) return unsafe(raw, `is longer than ${MAX_PATH_LENGTH} characters`);
  const segments = path.split('/');
  if (segments.length > MAX_PATH_SEGMENTS) return unsafe(raw, `has more than ${MAX_PATH_SEGMENTS} segments`);
  for (const segment of segments) {
    if (segment === '') return unsafe(raw, 'has an empty segment ("//" or a trailing "/")');
    if (segment === '.' || segment === '..') return unsafe(raw, `has a "${segment}" segment`);
    if (segment.startsWith('.')) return unsafe(raw, `has a segment starting with "." (${JSON.stringify(segment)})`);
    if ([...segment].length > MAX_SEGMENT_LENGTH) return unsafe(raw, `has a segment longer than ${MAX_SEGMENT_LENGTH} characters`);
    if (!SEGMENT.test(segment))
      return unsafe(raw, `has characters other than letters, digits, "_", "-" and "." in ${JSON.stringify(segment)}`);
  }
  return { ok: true, path: path as TopicPath };
}

export function topicBlobPath(path: TopicPath): string {
  return `${path}.html`;
}

/** Inverse of `topicBlobPath`: undefined for anything that is not a topic blob (e.g. `.brv/format`, `notes.md`). */
export function topicPathFromBlobPath(blobPath: string): TopicPath | undefined {
  if (!blobPath.endsWith('.html') || blobPath.startsWith('.brv/')) return undefined;
  const result = normalizeTopicPath(blobPath);
  return result.ok && topicBlobPath(result.path) === blobPath ? result.path : undefined;
}

/**
 * Names Windows reserves for devices, in any case and with any extension (`con`, `Aux.notes`, `com1`):
 * such a file cannot be created there (git for Windows refuses to check it out), so an export or a
 * checkout of the brv tree would fail or lose it.
 */
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³]|conin\$|conout\$)$/i;

/**
 * Why a new topic path would not survive other filesystems, or undefined. Checked when a topic is
 * written (curate, import), not when one is read: a stored path stays readable whatever its name.
 * The set, beyond what `normalizeTopicPath` already refuses (anything but letters, digits, `_`, `-`,
 * `.`, so no `:`, `*`, `?`, `"`, `<`, `>`, `|`, spaces or controls): a segment that is a Windows device
 * name before its first `.` (the topic file is `<segment>.html`, and Windows ignores extensions there),
 * and a segment ending in `.` (Windows drops trailing dots: `api.` and `api` are one folder).
 * Letter case is checked against the tree by the writer (`path-case-collision`).
 */
function nonPortablePathProblem(path: TopicPath): string | undefined {
  for (const segment of path.split('/')) {
    const stem = segment.split('.')[0]!;
    if (WINDOWS_RESERVED.test(stem))
      return `has a segment named like a Windows device (${JSON.stringify(segment)}): such a file cannot exist on Windows, so exports and checkouts there would lose it`;
    if (segment.endsWith('.'))
      return `has a segment ending in "." (${JSON.stringify(segment)}): Windows drops trailing dots, so it would be the same name as ${JSON.stringify(segment.replace(/\.+$/, ''))}`;
  }
  return undefined;
}

/** The topic-path error for a path `nonPortablePathProblem` refuses. */
export function nonPortablePathError(path: TopicPath): TopicError | undefined {
  const problem = nonPortablePathProblem(path);
  return problem === undefined
    ? undefined
    : { kind: 'unsafe-path', attribute: 'path', message: `Topic path ${JSON.stringify(path)} ${problem}. Choose another name.` };
}

/**
 * A name's key for comparisons that ignore letter case the way case-insensitive filesystems do
 * (macOS, Windows): upper then lower case, so `ß`/`SS` and `K`/`k` (Kelvin) meet too.
 */
export function caseFoldKey(name: string): string {
  return name.normalize('NFC').toUpperCase().toLowerCase();
}
