import type { Element, Nodes, Properties } from 'hast';
import { defaultSchema, sanitize, type Schema } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import { find, html } from 'property-information';
import { attributeName, isBvTag, startOf } from './hast.js';
import {
  BLOCK_TAGS,
  BV_GLOBAL_ATTRIBUTES,
  ELEMENTS,
  GLOBAL_ATTRIBUTES,
  INLINE_TAGS,
  isDataAttribute,
  plainAttributeAllowed,
  TAG_ATTRIBUTES,
  TOLERATED_TOPIC_ATTRIBUTES,
} from './registry.js';
import type { TopicError } from './types.js';

const SAFE_SCHEMES = ['http', 'https', 'mailto'];
const URL_ATTRIBUTES = [
  'href',
  'src',
  'cite',
  'action',
  'formaction',
  'xlink:href',
  'poster',
  'background',
  'longdesc',
  'usemap',
  'codebase',
  'data',
  'manifest',
  'icon',
  'srcset',
  'ping',
  'profile',
  'classid',
  'archive',
  'lowsrc',
  'dynsrc',
  'itemtype',
];
const FORM_TAGS = [
  'form',
  'input',
  'button',
  'select',
  'option',
  'optgroup',
  'textarea',
  'fieldset',
  'legend',
  'label',
  'datalist',
  'output',
  'keygen',
  'isindex',
  'meter',
  'progress',
];
const EMBED_TAGS = ['iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'portal', 'fencedframe', 'param'];
const MEDIA_TAGS = ['audio', 'video', 'source', 'track', 'picture', 'bgsound', 'image', 'area', 'map'];
const DANGEROUS_TAGS = new Map<string, string>(
  Object.entries({
    script: 'scripts never run from a topic; remove it',
    noscript: 'remove it',
    style: 'topics carry no styling; remove it',
    link: 'it loads another document; remove it',
    meta: 'it can redirect or change how the page is read; remove it',
    base: 'it changes where every link points; remove it',
    template: 'its content is hidden from checks; remove it',
    svg: 'SVG can run scripts and load resources; describe the picture in text or link to an image with <img src="https://…">',
    math: 'MathML can hide markup from sanitizers; write the formula as text or in <code>',
    title: 'it is raw text outside <head>; put the title in the title attribute of <bv-topic>',
    xmp: 'its raw-text parsing hides markup; use <pre><code> instead',
    plaintext: 'its raw-text parsing hides markup; use <pre><code> instead',
    noembed: 'remove it',
    noframes: 'remove it',
    menuitem: 'remove it',
    slot: 'it belongs to scripted components; remove it',
    ...Object.fromEntries(EMBED_TAGS.map((tag) => [tag, 'embedded content is not allowed; link to it with <a href="https://…"> instead'])),
    ...Object.fromEntries(
      MEDIA_TAGS.map((tag) => [tag, 'media that loads content is not allowed; link to it with <a href="https://…"> instead']),
    ),
    ...Object.fromEntries(FORM_TAGS.map((tag) => [tag, 'forms and form controls are not allowed; describe them in text instead'])),
  }),
);
/** Attributes that load or run something whatever their value (on any element; on… and style are separate). */
const DANGEROUS_ATTRIBUTES = new Set([
  'srcdoc',
  'formaction',
  'action',
  'srcset',
  'imagesrcset',
  'http-equiv',
  'xmlns',
  'xlink:href',
  'xml:base',
]);

const property = (attribute: string) => find(html, attribute).property;
const PLAIN_TAGS = [...INLINE_TAGS, ...BLOCK_TAGS];

/**
 * The allowlist, for reading blobs no validator has seen: the plain tags and attributes of registry.ts
 * plus the bv-* vocabulary. Ids are kept as written; everything else is dropped by the sanitizer.
 */
/** Raw-text and hidden content: dropped with its element by a sanitiser, never shown as text (the store's and the dashboard's). */
export const STRIPPED_TAGS: readonly string[] = [
  'script',
  'style',
  'noscript',
  'template',
  'textarea',
  'xmp',
  'iframe',
  'noembed',
  'noframes',
  'title',
  'svg',
  'math',
  'plaintext',
];

export const TOPIC_SCHEMA: Schema = {
  tagNames: [...PLAIN_TAGS, ...ELEMENTS.map((e) => e.name)],
  attributes: {
    '*': GLOBAL_ATTRIBUTES.map((a) => (a === 'data-*' ? 'data*' : property(a))),
    ...Object.fromEntries(Object.entries(TAG_ATTRIBUTES).map(([tag, names]) => [tag, names.map(property)])),
    ...Object.fromEntries(
      ELEMENTS.map((e) => [
        e.name,
        [
          ...e.attributes.map((a) => property(a.name)),
          ...BV_GLOBAL_ATTRIBUTES.map((a) => (a === 'data-*' ? 'data*' : property(a))),
          ...(e.name === 'bv-topic' ? TOLERATED_TOPIC_ATTRIBUTES : []),
        ],
      ]),
    ),
  },
  ancestors: defaultSchema.ancestors,
  clobber: [],
  required: {},
  strip: [...STRIPPED_TAGS],
  // `data:` is let through for src (only <img> has one) and narrowed to inline images by sanitizeTopic.
  protocols: Object.fromEntries(URL_ATTRIBUTES.map((a) => [property(a), a === 'src' ? [...SAFE_SCHEMES, 'data'] : SAFE_SCHEMES])),
};

/**
 * An inline raster image, the one `data:` URL a topic may hold (in <img src>): it loads nothing and
 * runs nothing. SVG is left out (opened on its own, an SVG document can run script).
 */
const IMAGE_DATA_URL = /^data:image\/(?:png|gif|jpeg|webp|avif|bmp);base64,[A-Za-z0-9+/]+={0,2}$/;

function isImageDataUrl(tag: string, attribute: string, value: string): boolean {
  return tag === 'img' && attribute === 'src' && IMAGE_DATA_URL.test(value);
}

/** TOPIC_SCHEMA's sanitizer, with any `data:` URL other than an inline image removed. */
export function sanitizeTopic(node: Nodes): Nodes {
  const clean = sanitize(node, TOPIC_SCHEMA);
  const stack: Nodes[] = [clean];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'element' && typeof next.properties.src === 'string' && unsafeScheme(next.tagName, 'src', next.properties.src)) {
      delete next.properties.src;
    }
    if ('children' in next) for (const child of next.children) stack.push(child);
  }
  return clean;
}

const allowedTags = new Set(TOPIC_SCHEMA.tagNames);

/** Same protocol rule as hast-util-sanitize: a colon before any `/`, `?` or `#` starts a scheme. */
function unsafeScheme(tag: string, attribute: string, url: string): string | undefined {
  if (isImageDataUrl(tag, attribute, url)) return undefined;
  const colon = url.indexOf(':');
  if (colon < 0) return undefined;
  for (const stop of ['/', '?', '#']) {
    const at = url.indexOf(stop);
    if (at > -1 && at < colon) return undefined;
  }
  const scheme = url.slice(0, colon);
  return SAFE_SCHEMES.includes(scheme) ? undefined : scheme;
}

/** The scheme as a browser reads it: whitespace and control characters removed, lowercase. */
function cleanScheme(scheme: string): string {
  // eslint-disable-next-line no-control-regex
  return scheme.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
}

function urlMessage(tag: string, attribute: string, scheme: string): string {
  const cleaned = cleanScheme(scheme);
  // The sanitizer matches schemes exactly, so "HTTPS:" or " https:" would be stripped on the way out.
  if (SAFE_SCHEMES.includes(cleaned)) {
    return `${attribute} on <${tag}> starts with "${scheme}:"; write the scheme in lowercase with nothing before it ("${cleaned}:").`;
  }
  return `${attribute} on <${tag}> uses a "${cleaned}:" URL; only http:, https:, mailto:, relative URLs and, in <img src>, base64 data:image/png|gif|jpeg|webp|avif|bmp are allowed. Use a safe URL or remove the attribute.`;
}

function schemaAllows(tag: string, prop: string, value: Properties[string]): boolean {
  const definitions = [...(TOPIC_SCHEMA.attributes?.[tag] ?? []), ...(TOPIC_SCHEMA.attributes?.['*'] ?? [])];
  if (/^data[A-Z0-9]/.test(prop) && isDataAttribute(attributeName(prop))) return definitions.includes('data*');
  const definition = definitions.find((d) => (typeof d === 'string' ? d : d[0]) === prop);
  if (definition === undefined) return false;
  if (typeof definition === 'string' || definition.length < 2) return true;
  const allowed = definition.slice(1);
  const values = Array.isArray(value) ? value : [value];
  return values.every((v) => allowed.some((a) => (a instanceof RegExp ? a.test(String(v)) : a === v)));
}

/** Event handlers and style: reported by the safety check on any element, bv-* included. */
export function isUnsafeAttributeName(attribute: string): boolean {
  return /^on/i.test(attribute) || attribute === 'style';
}

/** Why an attribute is dangerous whatever element carries it, or undefined. */
function dangerousAttribute(tag: string, attribute: string, value: Properties[string]): string | undefined {
  if (isUnsafeAttributeName(attribute) && attribute !== 'style') {
    return `Event-handler attribute ${attribute} on <${tag}> is not allowed: topics never run code. Remove it.`;
  }
  if (attribute === 'style') return `The style attribute on <${tag}> is not allowed: topics carry no styling. Remove it.`;
  if (DANGEROUS_ATTRIBUTES.has(attribute) || /^(xmlns|xlink):/.test(attribute)) {
    return `The ${attribute} attribute on <${tag}> is not allowed: it can load or run content. Remove it.`;
  }
  if (URL_ATTRIBUTES.includes(attribute)) {
    const scheme = unsafeScheme(tag, attribute, String(value));
    if (scheme !== undefined) return urlMessage(tag, attribute, scheme);
    if (!isBvTag(tag) && !(TAG_ATTRIBUTES[tag]?.includes(attribute) ?? false)) {
      return `The ${attribute} attribute on <${tag}> is not allowed: it loads content. Remove it (links go in <a href>, images in <img src>).`;
    }
  }
  return undefined;
}

function checkAttributes(element: Element, errors: TopicError[]): void {
  const tag = element.tagName;
  for (const [prop, value] of Object.entries(element.properties)) {
    const attribute = attributeName(prop);
    const danger = dangerousAttribute(tag, attribute, value);
    const scheme = URL_ATTRIBUTES.includes(attribute) ? unsafeScheme(tag, attribute, String(value)) : undefined;
    if (scheme !== undefined && SAFE_SCHEMES.includes(cleanScheme(scheme)) && danger !== undefined) {
      // "HTTPS:" or " https:": harmless, but not stored as written (the sanitizer matches schemes exactly).
      errors.push({ kind: 'attribute-validation', tag, attribute, message: urlMessage(tag, attribute, scheme), ...startOf(element) });
    } else if (danger !== undefined) {
      errors.push({ kind: 'unsafe-html', tag, attribute, message: danger, ...startOf(element) });
    } else if (!isBvTag(tag) && allowedTags.has(tag) && !plainAttributeAllowed(tag, attribute)) {
      const own = TAG_ATTRIBUTES[tag];
      errors.push({
        kind: 'attribute-validation',
        tag,
        attribute,
        ...startOf(element),
        message: `Attribute ${attribute} is not allowed on <${tag}> (allowed: ${[...GLOBAL_ATTRIBUTES, ...(own ?? [])].join(', ')}). Remove it, or keep the information as data-${attribute.replace(/[^a-z0-9_.-]/g, '') || 'x'}="…".`,
      });
    } else if (!isBvTag(tag) && allowedTags.has(tag) && !schemaAllows(tag, prop, value)) {
      errors.push({
        kind: 'unsafe-html',
        tag,
        attribute,
        message: `Attribute ${attribute} is not allowed on <${tag}>; remove it.`,
        ...startOf(element),
      });
    }
  }
}

/**
 * Reports everything outside the allowlist under `node`: dangerous tags and attributes as unsafe-html,
 * other tags as unknown-element. Unknown bv-* tags are left to the vocabulary check; comments to the
 * validator (they are dropped, not refused). Iterative.
 */
export function checkSafety(node: Nodes): TopicError[] {
  const errors: TopicError[] = [];
  const stack: Nodes[] = [node];
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n.type !== 'element' && n.type !== 'root') continue;
    if (n.type === 'element') {
      const tag = n.tagName;
      const why = DANGEROUS_TAGS.get(tag);
      if (why !== undefined) {
        errors.push({ kind: 'unsafe-html', tag, message: `<${tag}> is not allowed in a topic: ${why}.`, ...startOf(n) });
        continue;
      }
      if (!allowedTags.has(tag) && !isBvTag(tag)) {
        errors.push({
          kind: 'unknown-element',
          tag,
          ...startOf(n),
          message: `<${tag}> is not an element topics use; write its content as text or with allowed tags such as <p>, <div>, <span>, <code>, <ul>, <table>, <details> (the vocabulary lists them all).`,
        });
      }
      checkAttributes(n, errors);
    }
    // Reversed onto the stack: errors come out in document order.
    for (let i = n.children.length - 1; i >= 0; i--) stack.push(n.children[i]!);
  }
  return errors;
}

/**
 * A cheap, non-recursive test that `sanitize(node, TOPIC_SCHEMA)` has nothing security-relevant to
 * do: no comment, no tag outside the allowlist, no attribute the schema refuses, no unsafe URL.
 * True for every topic brv itself wrote, so reading those never pays for the sanitizer.
 */
export function isSanitized(node: Nodes): boolean {
  const stack: Nodes[] = [node];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'comment' || next.type === 'doctype') return false;
    if (next.type === 'element') {
      const tag = next.tagName;
      if (!allowedTags.has(tag)) return false;
      for (const [prop, value] of Object.entries(next.properties)) {
        const attribute = attributeName(prop);
        if (isUnsafeAttributeName(attribute) || !schemaAllows(tag, prop, value)) return false;
        if (URL_ATTRIBUTES.includes(attribute) && unsafeScheme(tag, attribute, String(value)) !== undefined) return false;
      }
    }
    if ('children' in next) for (const child of next.children) stack.push(child);
  }
  return true;
}

/** Backstop: true when the real sanitizer would change the tree. */
export function sanitizerWouldChange(node: Nodes): boolean {
  return toHtml(sanitizeTopic(node)) !== toHtml(node);
}
