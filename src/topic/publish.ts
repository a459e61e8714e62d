import { attributesOf } from './hast.js';
import { markdownDestination, markdownInline } from './inline.js';
import { caseFoldKey } from './path.js';
import { parseRelated } from './related.js';
import { renderTopicMarkdown } from './render.js';
import { readStoredTopic } from './stored.js';
import type { TopicPath } from './types.js';

/**
 * The pages of `brv publish`: each topic as plain Markdown (the inert renderer's output, then its
 * related refs as relative links between the published files) and one README.md per folder listing
 * its sub-folders and topics by title. Pure: paths in, Markdown out. Every page is a function of its
 * topic blob, its path and where its related refs lead, so unchanged topics keep their bytes.
 */

/** The index file of every folder. */
const INDEX_FILE = 'README.md';

/**
 * The published file of a topic: `<path>.md`; a topic whose last segment reads `readme` in any case
 * would be the folder's index file on a case-insensitive disk, so it is `<path>~topic.md` (`~` is not
 * allowed in topic paths, so no other topic can have that name).
 */
export function pageFile(path: TopicPath | string): string {
  const last = path.slice(path.lastIndexOf('/') + 1);
  return caseFoldKey(last) === 'readme' ? `${path}~topic.md` : `${path}.md`;
}

/** The folder of a topic path or file ('' at the top). */
function folderOf(file: string): string {
  const slash = file.lastIndexOf('/');
  return slash < 0 ? '' : file.slice(0, slash);
}

/** A link destination from the file `from` to the file `to` (both relative to the published root), encoded. */
function relativeLink(from: string, to: string): string {
  const base = folderOf(from).split('/').filter(Boolean);
  const target = to.split('/');
  let shared = 0;
  while (shared < base.length && shared < target.length - 1 && base[shared] === target[shared]) shared++;
  const parts = [...base.slice(shared).map(() => '..'), ...target.slice(shared)];
  return markdownDestination(parts.map((part) => (part === '..' ? part : encodeURIComponent(part))).join('/'));
}

/** What a topic's related refs lead to: the file each resolves to, or undefined when it names nothing published. */
export interface RelatedLink {
  ref: string;
  /** The target topic path or folder (with a trailing `/`), as shown. */
  label: string;
  /** The published file it links to. */
  file: string;
}

/** One topic read from its blob: its title and its related refs (still unresolved). */
export interface PublishedTopic {
  title: string;
  related: Array<{ path: string; explicitTopic: boolean; ref: string }>;
  /** The parsed topic, kept for rendering; undefined when the blob is not a readable topic. */
  render: () => string;
}

/** Reads a topic blob (untrusted: readStoredTopic bounds and sanitizes it); never throws. */
export function readPublishedTopic(path: string, html: string): PublishedTopic {
  const read = readStoredTopic(html);
  if (!read.ok) {
    const notice = `# ${markdownInline(path, 'heading')}\n\n_This file cannot be shown as a topic: ${markdownInline(read.message)}_\n`;
    return { title: '', related: [], render: () => notice };
  }
  const refs = parseRelated(attributesOf(read.root).get('related'));
  return {
    title: read.title,
    related: refs.flatMap((ref) => (ref.ok ? [{ path: ref.path, explicitTopic: ref.explicitTopic, ref: ref.ref }] : [])),
    render: () => {
      try {
        return renderTopicMarkdown(read.root);
      } catch {
        return `# ${markdownInline(read.title || path, 'heading')}\n`;
      }
    },
  };
}

/**
 * Where each related ref leads among the published topics: a `.html` ref only to a topic, a bare one
 * to a topic if there is one, else to a folder's index. Refs that lead nowhere are left out (a link to
 * a missing file would not work), as are repeats.
 */
export function resolveRelated(
  related: PublishedTopic['related'],
  topics: ReadonlySet<string>,
  folders: ReadonlySet<string>,
): RelatedLink[] {
  const links: RelatedLink[] = [];
  const seen = new Set<string>();
  for (const ref of related) {
    let link: RelatedLink | undefined;
    if (topics.has(ref.path)) link = { ref: ref.ref, label: ref.path, file: pageFile(ref.path) };
    else if (!ref.explicitTopic && folders.has(ref.path)) link = { ref: ref.ref, label: `${ref.path}/`, file: `${ref.path}/${INDEX_FILE}` };
    if (link && !seen.has(link.file)) {
      seen.add(link.file);
      links.push(link);
    }
  }
  return links;
}

/** A topic's page: the rendered topic, then its related refs as working relative links. */
export function topicPage(path: string, rendered: string, links: readonly RelatedLink[]): string {
  const file = pageFile(path);
  const up = `[${markdownInline(folderOf(path) ? `${folderOf(path)}/` : 'All topics')}](${relativeLink(file, folderOf(path) ? `${folderOf(path)}/${INDEX_FILE}` : INDEX_FILE)})`;
  const blocks = [rendered.trimEnd()];
  if (links.length > 0) {
    blocks.push('## Related', links.map((link) => `- [${markdownInline(link.label)}](${relativeLink(file, link.file)})`).join('\n'));
  }
  blocks.push(`---\n\nIn ${up}.`);
  return `${blocks.join('\n\n')}\n`;
}

/** Every folder that holds a topic (at any depth), '' included. */
export function foldersOf(paths: Iterable<string>): Set<string> {
  const folders = new Set<string>(['']);
  for (const path of paths) {
    for (let slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) folders.add(path.slice(0, slash));
  }
  return folders;
}

/**
 * The README.md of every folder: its sub-folders, then its topics by title (the path where a topic has
 * none), sorted by path so the same topics always give the same bytes.
 */
export function indexPages(topics: ReadonlyMap<string, string>): Map<string, string> {
  const folders = foldersOf(topics.keys());
  const children = new Map<string, { folders: string[]; topics: string[] }>();
  for (const folder of folders) children.set(folder, { folders: [], topics: [] });
  for (const folder of folders) if (folder !== '') children.get(folderOf(folder))!.folders.push(folder);
  for (const path of topics.keys()) children.get(folderOf(path))!.topics.push(path);
  const byCodeUnit = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  const pages = new Map<string, string>();
  for (const folder of [...folders].sort(byCodeUnit)) {
    const file = folder === '' ? INDEX_FILE : `${folder}/${INDEX_FILE}`;
    const entry = children.get(folder)!;
    const blocks = [folder === '' ? '# Knowledge' : `# ${markdownInline(`${folder}/`, 'heading')}`];
    if (folder === '') {
      blocks.push(
        `${topics.size} ${topics.size === 1 ? 'topic' : 'topics'}, published by brv from the knowledge on git; ` +
          'each page is generated, so change the knowledge (brv curate, brv edit) and publish again rather than editing it here.',
      );
    } else {
      const parent = folderOf(folder);
      blocks.push(
        `Up: [${markdownInline(parent ? `${parent}/` : 'All topics')}](${relativeLink(file, parent ? `${parent}/${INDEX_FILE}` : INDEX_FILE)})`,
      );
    }
    if (entry.folders.length > 0) {
      const lines = entry.folders
        .sort(byCodeUnit)
        .map(
          (sub) => `- [${markdownInline(`${sub.slice(folder ? folder.length + 1 : 0)}/`)}](${relativeLink(file, `${sub}/${INDEX_FILE}`)})`,
        );
      blocks.push('## Folders', lines.join('\n'));
    }
    if (entry.topics.length > 0) {
      const lines = entry.topics.sort(byCodeUnit).map((path) => {
        const title = topics.get(path)!.trim();
        const name = path.slice(folder ? folder.length + 1 : 0);
        const label = markdownInline(title || name);
        return `- [${label}](${relativeLink(file, pageFile(path))})${title ? ` (${markdownInline(name)})` : ''}`;
      });
      blocks.push('## Topics', lines.join('\n'));
    }
    pages.set(file, `${blocks.join('\n\n')}\n`);
  }
  return pages;
}
