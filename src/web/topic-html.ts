import type { Element, ElementContent, Properties } from 'hast';
import { sanitize, type Schema } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import { attributesOf, rawText } from '../topic/hast.js';
import { BLOCK_TAGS, ELEMENTS, INLINE_TAGS, elementSpec } from '../topic/registry.js';
import { readStoredTopic } from '../topic/stored.js';
import { LABELS } from '../topic/render-parts.js';
import { STRIPPED_TAGS } from '../topic/safety.js';

/** A stored topic as the dashboard shows it. */
export interface DisplayTopic {
  title: string;
  /** Display HTML: sanitised, inert, every string escaped (see `topicDisplayHtml`). */
  html: string;
}

const BV_NAMES = ELEMENTS.map((e) => e.name.slice('bv-'.length)).filter((name) => name !== 'topic');
/** The only classes the display HTML carries: the dashboard's own, never a topic's. */
const CLASSES = [
  'bv',
  'bv-topic',
  'bv-other',
  'bv-label',
  'bv-meta',
  'bv-body',
  'bv-summary',
  'bv-tags',
  ...BV_NAMES.map((n) => `bv-${n}`),
];

/** Plain tags a topic may hold, without images (added back only as inline `data:` images, below). */
const CONTENT_TAGS = [...INLINE_TAGS, ...BLOCK_TAGS];

/**
 * The display allowlist, stricter than the store's: no id, class, data-* or style from the topic, no
 * URL attribute but `href` (http, https, mailto) and `src` (inline raster images only, checked after).
 */
const DISPLAY_SCHEMA: Schema = {
  tagNames: [...new Set([...CONTENT_TAGS, 'section', 'article', 'header', 'h3', 'span', 'div', 'p', 'ul', 'pre', 'code'])],
  attributes: {
    '*': ['title', 'lang', 'dir'],
    a: ['href', 'hrefLang'],
    img: ['src', 'alt', 'width', 'height'],
    time: ['dateTime'],
    del: ['dateTime'],
    ins: ['dateTime'],
    data: ['value'],
    details: ['open'],
    ol: ['start', 'reversed', 'type'],
    li: ['value'],
    th: ['colSpan', 'rowSpan', 'scope', 'abbr'],
    td: ['colSpan', 'rowSpan'],
    section: [['className', ...CLASSES]],
    article: [['className', ...CLASSES]],
    header: [['className', ...CLASSES]],
    h3: [['className', ...CLASSES]],
    span: [['className', ...CLASSES]],
    div: [['className', ...CLASSES]],
    p: [['className', ...CLASSES]],
  },
  protocols: { href: ['http', 'https', 'mailto'], src: ['data'] },
  ancestors: {},
  clobber: [],
  clobberPrefix: '',
  required: {},
  strip: [...STRIPPED_TAGS],
};

const SAFE_HREF = /^(?:https?:|mailto:)/i;
const IMAGE_DATA_URL = /^data:image\/(?:png|gif|jpeg|webp|avif|bmp);base64,[A-Za-z0-9+/]+={0,2}$/;
const LINK_REL = ['noopener', 'noreferrer', 'nofollow'];

function element(tagName: string, className: string[] | undefined, children: ElementContent[]): Element {
  const properties: Properties = className ? { className } : {};
  return { type: 'element', tagName, properties, children };
}

function text(value: string): ElementContent {
  return { type: 'text', value };
}

/** A copy of the topic's own content with none of its classes, ids or data (they could pose as the dashboard's). */
function content(nodes: readonly ElementContent[]): ElementContent[] {
  return nodes.map((node) => {
    if (node.type !== 'element') return { ...node } as ElementContent;
    const properties: Properties = {};
    for (const [key, value] of Object.entries(node.properties)) {
      if (key === 'className' || key === 'id' || key.startsWith('data')) continue;
      properties[key] = value;
    }
    return { type: 'element', tagName: node.tagName, properties, children: content(node.children) };
  });
}

/** `<li>` children (bv-changes, bv-files hold them directly) gathered into `<ul>`s where they stand. */
function listed(nodes: ElementContent[]): ElementContent[] {
  const out: ElementContent[] = [];
  let list: Element | undefined;
  for (const node of nodes) {
    if (node.type === 'element' && node.tagName === 'li') {
      if (!list) out.push((list = element('ul', undefined, [])));
      list.children.push(node);
    } else if (node.type === 'text' && list && node.value.trim() === '') {
      continue;
    } else {
      list = undefined;
      out.push(node);
    }
  }
  return out;
}

/** The text of a verbatim element (a diagram, a pattern) as written: its line breaks and indentation kept. */
function verbatimText(node: Element): string {
  return rawText(node) // iterative: safe on any depth
    .replace(/^[ \t]*\n/, '')
    .trimEnd();
}

/**
 * A `<bv-files>` item written as plain text (`<li>src/a.ts (the parser)</li>`): its leading path shown as code, as
 * the element asks ("path in <code>"); an http(s) address there becomes a link (`finish` checks it). A file of the
 * project is never a link: the dashboard serves no working tree. Items with markup of their own stay as written.
 */
function fileItem(node: ElementContent): ElementContent {
  if (node.type !== 'element') return node;
  if (node.tagName === 'ul' || node.tagName === 'ol') return { ...node, children: node.children.map(fileItem) };
  if (node.tagName !== 'li' || node.children.some((child) => child.type !== 'text')) return node;
  const match = /^(\s*)(\S+)([\s\S]*)$/.exec(node.children.map((child) => (child.type === 'text' ? child.value : '')).join(''));
  if (!match) return node;
  const [, before, path, after] = match as unknown as [string, string, string, string];
  const shown = /^https?:\/\//i.test(path)
    ? { ...element('a', undefined, [text(path)]), properties: { href: path } }
    : element('code', undefined, [text(path)]);
  return { ...node, children: [text(before), shown, text(after)].filter((child) => child.type !== 'text' || child.value !== '') };
}

/** One bv-* element as `<section class="bv bv-<name>">` with a label (and its attributes as text). */
function section(node: Element): ElementContent {
  const name = node.tagName.slice('bv-'.length);
  const spec = elementSpec(node.tagName);
  const known = spec !== undefined && LABELS.has(node.tagName);
  const attributes = attributesOf(node);
  const meta = (spec?.attributes ?? [])
    .filter((a) => a.name !== 'id' && attributes.get(a.name))
    .map((a) => `${a.name}: ${attributes.get(a.name)}`);
  const label = element('h3', ['bv-label'], [text(known ? LABELS.get(node.tagName)! : 'Other')]);
  if (meta.length > 0) label.children.push(text(' '), element('span', ['bv-meta'], [text(meta.join(' · '))]));
  const children = spec?.content === 'text' ? [] : content(node.children);
  const body =
    spec?.content === 'text'
      ? [element('pre', undefined, [element('code', undefined, [text(verbatimText(node))])])]
      : listed(node.tagName === 'bv-files' ? children.map(fileItem) : children);
  return element('section', ['bv', known ? `bv-${name}` : 'bv-other'], [label, element('div', ['bv-body'], body)]);
}

/** After the allowlist: links get rel and only safe schemes, images only inline raster data. */
function finish(nodes: ElementContent[]): void {
  for (const node of nodes) {
    if (node.type !== 'element') continue;
    if (node.tagName === 'a') {
      const href = node.properties.href;
      if (typeof href === 'string' && SAFE_HREF.test(href.trim())) node.properties.rel = [...LINK_REL];
      else delete node.properties.href;
    }
    if (node.tagName === 'img' && !(typeof node.properties.src === 'string' && IMAGE_DATA_URL.test(node.properties.src))) {
      const alt = typeof node.properties.alt === 'string' ? node.properties.alt : '';
      Object.assign(node, { tagName: 'span', properties: {}, children: alt ? [text(`[image: ${alt}]`)] : [] });
      continue;
    }
    finish(node.children);
  }
}

/**
 * A stored topic blob as display HTML for the dashboard. The blob is read as the store reads every
 * blob (readStoredTopic: bounded, sanitised, no control characters), rebuilt into the dashboard's own
 * structure (each bv-* element a labelled `<section class="bv bv-<name>">`), then passed through a
 * stricter allowlist: no script, handler, style, id, class or data attribute of the topic's survives,
 * links keep only http, https and mailto (with rel="noopener noreferrer nofollow"), images only
 * inline raster `data:` URLs (nothing is loaded from elsewhere), and every string is escaped by the
 * serialiser. A blob that is not a readable topic becomes a notice.
 */
export function topicDisplayHtml(stored: string): DisplayTopic {
  const topic = readStoredTopic(stored);
  if (!topic.ok) {
    const notice = element('p', ['bv-other'], [text(`This file cannot be shown as a topic: ${topic.message}`)]);
    return { title: '', html: toHtml(notice) };
  }
  const attributes = attributesOf(topic.root);
  const header: ElementContent[] = [];
  const summary = attributes.get('summary')?.trim();
  const tags = attributes.get('tags')?.trim();
  if (summary) header.push(element('p', ['bv-summary'], [text(summary)]));
  if (tags) header.push(element('p', ['bv-tags'], [text(`Tags: ${tags}`)]));
  const sections = topic.root.children.flatMap((child): ElementContent[] => {
    if (child.type === 'element' && child.tagName.startsWith('bv-')) return [section(child)];
    if (child.type === 'text' && child.value.trim() === '') return [];
    if (child.type === 'comment') return [];
    return [element('section', ['bv', 'bv-other'], [element('div', ['bv-body'], content([child]))])];
  });
  const article = element(
    'article',
    ['bv', 'bv-topic'],
    [...(header.length > 0 ? [element('header', ['bv-meta'], header)] : []), ...sections],
  );
  const clean = sanitize(article, DISPLAY_SCHEMA);
  if (clean.type !== 'element') return { title: topic.title, html: '' };
  finish([clean]);
  return { title: topic.title, html: toHtml(clean) };
}
