import type { Element, Nodes, Properties } from 'hast';
import { defaultSchema, sanitize, type Schema } from 'hast-util-sanitize';
import { toHtml } from 'hast-util-to-html';
import { find, html } from 'property-information';
import { attributeName, isBvTag } from './hast.js';
import { ELEMENTS, TOLERATED_TOPIC_ATTRIBUTES } from './registry.js';
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
const FORM_TAGS = ['form', 'input', 'button', 'select', 'option', 'optgroup', 'textarea', 'fieldset', 'datalist', 'output'];
const EMBED_TAGS = ['iframe', 'frame', 'frameset', 'object', 'embed', 'applet', 'portal', 'fencedframe'];
const DANGEROUS_TAGS = new Map<string, string>(
  Object.entries({
    script: 'scripts never run from a topic; remove it',
    noscript: 'remove it',
    style: 'topics carry no styling; remove it',
    link: 'remove it',
    meta: 'remove it',
    base: 'remove it',
    template: 'remove it',
    ...Object.fromEntries(EMBED_TAGS.map((tag) => [tag, 'embedded content is not allowed; link to it with <a href="https://…"> instead'])),
    ...Object.fromEntries(FORM_TAGS.map((tag) => [tag, 'forms and form controls are not allowed; describe them in text instead'])),
  }),
);

const property = (attribute: string) => find(html, attribute).property;

/** defaultSchema (GitHub-style) plus the bv-* vocabulary; ids are kept as written, forms are out. */
export const TOPIC_SCHEMA: Schema = {
  ...defaultSchema,
  tagNames: [...(defaultSchema.tagNames ?? []).filter((tag) => !FORM_TAGS.includes(tag)), ...ELEMENTS.map((e) => e.name)],
  attributes: {
    ...defaultSchema.attributes,
    ...Object.fromEntries(
      ELEMENTS.map((e) => [
        e.name,
        [...e.attributes.map((a) => property(a.name)), ...(e.name === 'bv-topic' ? TOLERATED_TOPIC_ATTRIBUTES : [])],
      ]),
    ),
  },
  clobber: [],
  required: {},
  // Raw-text and hidden content is dropped with its element, never shown as text.
  strip: [...(defaultSchema.strip ?? []), 'style', 'noscript', 'template', 'textarea', 'xmp', 'iframe', 'noembed', 'noframes', 'title'],
  protocols: Object.fromEntries(URL_ATTRIBUTES.map((a) => [property(a), SAFE_SCHEMES])),
};

const allowedTags = new Set(TOPIC_SCHEMA.tagNames);

/** Same protocol rule as hast-util-sanitize: a colon before any `/`, `?` or `#` starts a scheme. */
function unsafeScheme(url: string): string | undefined {
  const colon = url.indexOf(':');
  if (colon < 0) return undefined;
  for (const stop of ['/', '?', '#']) {
    const at = url.indexOf(stop);
    if (at > -1 && at < colon) return undefined;
  }
  const scheme = url.slice(0, colon);
  return SAFE_SCHEMES.includes(scheme) ? undefined : scheme;
}

function urlMessage(tag: string, attribute: string, scheme: string): string {
  const cleaned = scheme.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
  // The sanitizer matches schemes exactly, so "HTTPS:" or " https:" would be stripped on the way out.
  if (SAFE_SCHEMES.includes(cleaned)) {
    return `${attribute} on <${tag}> starts with "${scheme}:"; write the scheme in lowercase with nothing before it ("${cleaned}:").`;
  }
  return `${attribute} on <${tag}> uses a "${cleaned}:" URL; only http:, https:, mailto: and relative URLs are allowed. Use a safe URL or remove the attribute.`;
}

function schemaAllows(tag: string, prop: string, value: Properties[string]): boolean {
  const definitions = [...(TOPIC_SCHEMA.attributes?.[tag] ?? []), ...(TOPIC_SCHEMA.attributes?.['*'] ?? [])];
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

function checkAttributes(element: Element, errors: TopicError[]): void {
  const tag = element.tagName;
  for (const [prop, value] of Object.entries(element.properties)) {
    const attribute = attributeName(prop);
    const fail = (message: string) => errors.push({ kind: 'unsafe-html', tag, attribute, message });
    if (attribute !== 'style' && isUnsafeAttributeName(attribute)) {
      fail(`Event-handler attribute ${attribute} on <${tag}> is not allowed: topics never run code. Remove it.`);
    } else if (attribute === 'style') {
      fail(`The style attribute on <${tag}> is not allowed: topics carry no styling. Remove it.`);
    } else if (URL_ATTRIBUTES.includes(attribute) && unsafeScheme(String(value)) !== undefined) {
      fail(urlMessage(tag, attribute, unsafeScheme(String(value)) ?? ''));
    } else if (!isBvTag(tag) && allowedTags.has(tag) && !schemaAllows(tag, prop, value)) {
      fail(`Attribute ${attribute} is not allowed on <${tag}>; remove it.`);
    }
  }
}

/** Reports everything outside the allowlist under `node`. Unknown bv-* tags are left to the vocabulary check. Iterative. */
export function checkSafety(node: Nodes): TopicError[] {
  const errors: TopicError[] = [];
  const stack: Nodes[] = [node];
  for (let n = stack.pop(); n !== undefined; n = stack.pop()) {
    if (n.type === 'comment') {
      errors.push({
        kind: 'unsafe-html',
        message:
          'HTML comments are not allowed in a topic (renderers drop them and they can hide markup); remove the comment or put the note in a bv-* element.',
      });
      continue;
    }
    if (n.type !== 'element' && n.type !== 'root') continue;
    if (n.type === 'element') {
      const tag = n.tagName;
      const why = DANGEROUS_TAGS.get(tag);
      if (why !== undefined) {
        errors.push({ kind: 'unsafe-html', tag, message: `<${tag}> is not allowed in a topic: ${why}.` });
        continue;
      }
      if (!allowedTags.has(tag) && !isBvTag(tag)) {
        errors.push({
          kind: 'unsafe-html',
          tag,
          message: `<${tag}> is outside the allowed HTML; use the bv-* elements with plain tags such as <p>, <ul>, <code>, <pre>, <table>, <a>.`,
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
        if (URL_ATTRIBUTES.includes(attribute) && unsafeScheme(String(value)) !== undefined) return false;
      }
    }
    if ('children' in next) for (const child of next.children) stack.push(child);
  }
  return true;
}

/** Backstop: true when the real sanitizer would change the tree. */
export function sanitizerWouldChange(node: Nodes): boolean {
  return toHtml(sanitize(node, TOPIC_SCHEMA)) !== toHtml(node);
}
