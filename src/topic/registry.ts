import type { TopicError } from './types.js';

export type ContentModel = 'any' | 'block' | 'inline' | 'text';

export interface AttributeSpec {
  readonly name: string;
  readonly required?: boolean;
  /** Present values must be non-blank (required attributes always are). */
  readonly nonEmpty?: boolean;
  /** Allowed values, if the attribute is an enum. */
  readonly values?: readonly string[];
  readonly description: string;
}

export interface ElementSpec {
  readonly name: string;
  readonly content: ContentModel;
  readonly attributes: readonly AttributeSpec[];
  readonly description: string;
}

/**
 * Phrasing tags allowed (at any depth) inside `inline` elements. Everything here is inert: it cannot
 * run code or load anything, so it is kept as written (see safety.ts for what is refused and why).
 */
export const INLINE_TAGS: readonly string[] = [
  'code',
  'strong',
  'em',
  'b',
  'i',
  'a',
  'br',
  'kbd',
  'sub',
  'sup',
  'span',
  'time',
  'mark',
  'abbr',
  'u',
  's',
  'del',
  'ins',
  'small',
  'cite',
  'q',
  'var',
  'samp',
  'dfn',
  'data',
  'bdi',
  'bdo',
  'wbr',
];
/** Tags allowed inside `block` elements, in addition to INLINE_TAGS. */
export const BLOCK_TAGS: readonly string[] = [
  'p',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'ul',
  'ol',
  'li',
  'pre',
  'blockquote',
  'table',
  'caption',
  'thead',
  'tbody',
  'tfoot',
  'tr',
  'th',
  'td',
  'hr',
  'dl',
  'dt',
  'dd',
  'img',
  'div',
  'section',
  'article',
  'aside',
  'header',
  'footer',
  'address',
  'details',
  'summary',
  'figure',
  'figcaption',
];

/**
 * Attributes every plain tag may carry (`data-*`: any `data-` name). They describe, they never
 * execute or load. bv-* elements take BV_GLOBAL_ATTRIBUTES besides their own.
 */
export const GLOBAL_ATTRIBUTES: readonly string[] = ['id', 'title', 'class', 'lang', 'dir', 'data-*'];
/** What every bv-* element may carry besides its own attributes (id and title mean something on some of them). */
export const BV_GLOBAL_ATTRIBUTES: readonly string[] = ['class', 'lang', 'dir', 'data-*'];
/** Further attributes per plain tag. URL-valued ones (href, src, cite) keep only http(s), mailto and relative URLs. */
export const TAG_ATTRIBUTES: Readonly<Record<string, readonly string[]>> = {
  a: ['href', 'hreflang', 'rel', 'target'],
  img: ['src', 'alt', 'width', 'height'],
  time: ['datetime'],
  del: ['cite', 'datetime'],
  ins: ['cite', 'datetime'],
  q: ['cite'],
  blockquote: ['cite'],
  data: ['value'],
  details: ['open'],
  ol: ['start', 'reversed', 'type'],
  li: ['value'],
  th: ['colspan', 'rowspan', 'headers', 'scope', 'abbr', 'align'],
  td: ['colspan', 'rowspan', 'headers', 'align'],
};

/** Whether a plain (non bv-*) allowed tag may carry the attribute (HTML name, lowercase). */
export function plainAttributeAllowed(tag: string, attribute: string): boolean {
  return isDataAttribute(attribute) || GLOBAL_ATTRIBUTES.includes(attribute) || (TAG_ATTRIBUTES[tag]?.includes(attribute) ?? false);
}

export function isDataAttribute(attribute: string): boolean {
  return /^data-[a-z0-9_.-]+$/.test(attribute);
}

/** System-managed; an author setting them is a mistake worth reporting. */
const RESERVED_TOPIC_ATTRIBUTES: readonly string[] = ['importance', 'maturity', 'recency'];
/** ByteRover stamps these into files; accepted so resubmitted topics validate, then dropped (history comes from git). */
export const TOLERATED_TOPIC_ATTRIBUTES: readonly string[] = ['createdat', 'updatedat'];

const id: AttributeSpec = { name: 'id', nonEmpty: true, description: 'stable id, unique within the topic' };

function element(name: string, content: ContentModel, description: string, attributes: AttributeSpec[] = []): ElementSpec {
  return { name, content, description, attributes };
}

export const ELEMENTS: readonly ElementSpec[] = [
  element('bv-topic', 'any', 'The single root of every topic. Its children are bv-* elements only.', [
    { name: 'path', required: true, description: 'topic path, 1-5 "/"-separated segments, e.g. "security/auth"' },
    { name: 'title', required: true, description: 'human title of the topic' },
    { name: 'summary', description: 'one-line summary' },
    { name: 'tags', description: 'comma-separated tags, e.g. "security,authentication"' },
    { name: 'keywords', description: 'comma-separated search keywords' },
    { name: 'related', description: 'comma-separated related topics ("@x/y.html") or folders ("@x")' },
  ]),
  element('bv-reason', 'block', 'Why this knowledge was captured.'),
  element('bv-task', 'inline', 'The task that produced this knowledge.'),
  element('bv-changes', 'block', 'What changed; one <li> per change.'),
  element('bv-files', 'block', 'Files involved; one <li> per file, path in <code>.'),
  element('bv-flow', 'inline', 'A process or data flow in one line, e.g. "request → verify → refresh".'),
  element('bv-timestamp', 'inline', 'When the described facts were true (a data date, not a file time).'),
  element('bv-author', 'inline', 'Who owns or provided this knowledge.'),
  element('bv-pattern', 'text', 'A regular expression; the text is the pattern. Repeatable.', [
    { name: 'flags', description: 'regex flags, e.g. "i"' },
    { name: 'description', description: 'what the pattern matches' },
  ]),
  element('bv-structure', 'block', 'Structure: modules, boundaries, layout.'),
  element('bv-dependencies', 'block', 'Dependencies and how they are used.'),
  element('bv-highlights', 'block', 'The most important points.'),
  element('bv-rule', 'inline', 'One rule or constraint. Repeatable.', [
    { name: 'severity', values: ['info', 'must', 'should'], description: 'how binding the rule is' },
    id,
  ]),
  element('bv-examples', 'block', 'Examples, typically <pre><code> blocks.'),
  element('bv-diagram', 'text', 'A diagram as source text (mermaid, plantuml, ascii…), kept verbatim; escape < and & as &lt; and &amp;.', [
    { name: 'type', values: ['mermaid', 'plantuml', 'ascii', 'dot', 'graphviz', 'other'], description: 'diagram language' },
    { name: 'title', description: 'diagram title' },
  ]),
  element('bv-fact', 'inline', 'One atomic fact. Repeatable.', [
    {
      name: 'category',
      values: ['personal', 'project', 'preference', 'convention', 'team', 'environment', 'other'],
      description: 'kind of fact',
    },
    { name: 'subject', description: 'what the fact is about, e.g. "access_token_ttl"' },
    { name: 'value', description: 'the fact\'s value, e.g. "15 minutes"' },
  ]),
  element('bv-decision', 'block', 'A decision and its rationale.', [id]),
  element('bv-bug', 'block', 'A bug: symptom, cause, how to recognise it.', [
    id,
    { name: 'severity', values: ['low', 'medium', 'high', 'critical'], description: 'impact of the bug' },
  ]),
  element('bv-fix', 'block', 'The fix for a bug: steps, code, verification.', [id]),
];

const byName = new Map(ELEMENTS.map((spec) => [spec.name, spec]));

export function elementSpec(tag: string): ElementSpec | undefined {
  return byName.get(tag);
}

/** Checks one registered element's attributes (HTML names → values). Unknown tags yield no errors here. */
export function validateElementAttributes(tag: string, attributes: ReadonlyMap<string, string>): TopicError[] {
  const spec = byName.get(tag);
  if (!spec) return [];
  const errors: TopicError[] = [];
  const fail = (attribute: string, message: string) => errors.push({ kind: 'attribute-validation', tag, attribute, message });
  const allowed = spec.attributes.map((a) => a.name);
  for (const [name, value] of attributes) {
    const attr = spec.attributes.find((a) => a.name === name);
    if (attr) {
      if (attr.values && !attr.values.includes(value)) {
        fail(name, `<${tag}> ${name}="${value}" is not allowed; use one of: ${attr.values.join(', ')}.`);
      } else if ((attr.required || attr.nonEmpty) && value.trim() === '') {
        if (!(tag === 'bv-topic' && name === 'path')) fail(name, `<${tag}> ${name} must not be empty.`);
      }
    } else if (tag === 'bv-topic' && TOLERATED_TOPIC_ATTRIBUTES.includes(name)) {
      continue;
    } else if (isDataAttribute(name) || BV_GLOBAL_ATTRIBUTES.includes(name)) {
      continue;
    } else if (tag === 'bv-topic' && RESERVED_TOPIC_ATTRIBUTES.includes(name)) {
      fail(name, `${name} is system-managed and must not be set on <bv-topic>; remove it.`);
    } else {
      const own = allowed.length > 0 ? `its attributes: ${allowed.join(', ')}` : 'it takes no attributes of its own';
      fail(
        name,
        `<${tag}> has unknown attribute "${name}"; the vocabulary is closed (${own}; any bv-* element also takes ${BV_GLOBAL_ATTRIBUTES.join(', ')}). Keep extra information as data-${name.replace(/[^a-z0-9_.-]/g, '') || 'x'}="…" or in the text.`,
      );
    }
  }
  for (const attr of spec.attributes) {
    if (!attr.required || attributes.has(attr.name)) continue;
    if (tag === 'bv-topic' && attr.name === 'path') continue; // reported as missing-path-attribute by the validator
    fail(attr.name, `<${tag}> needs a ${attr.name} attribute (${attr.description}).`);
  }
  return errors;
}

const CONTENT_TEXT: Record<ContentModel, string> = {
  any: 'bv-* elements only',
  block: 'block content',
  inline: 'inline content',
  text: 'plain text only',
};

function describeAttribute(attr: AttributeSpec): string {
  const values = attr.values ? `one of ${attr.values.join(' | ')}` : attr.description;
  return `${attr.name}${attr.values ? ` (${attr.description})` : ''}: ${values}`;
}

/** The vocabulary as prompt text, for the curate prompt builder. */
export function renderVocabulary(): string {
  const lines = [
    'Topic vocabulary (closed: any other bv-* element or attribute is rejected).',
    `Inline content: text and <${INLINE_TAGS.join('>, <')}>.`,
    `Block content: inline content plus <${BLOCK_TAGS.join('>, <')}>. <li> goes inside <ul>/<ol>, or directly inside <bv-changes>/<bv-files>.`,
    'Plain text only: no tags; escape < and & as &lt; and &amp;.',
    'bv-* elements never contain other bv-* elements: they are all direct children of <bv-topic>.',
    `Any plain tag may carry ${GLOBAL_ATTRIBUTES.join(', ')} (data-* is any data- name); also ${Object.entries(TAG_ATTRIBUTES)
      .map(([tag, names]) => `<${tag} ${names.join(' ')}>`)
      .join(', ')}. URLs are http:, https:, mailto: or relative (an <img src> may also be a base64 data:image/png|gif|jpeg|webp URL).`,
    `Every bv-* element may also carry ${BV_GLOBAL_ATTRIBUTES.join(', ')}.`,
    'Refused as unsafe: <script>, <style>, <iframe>/<object>/<embed>, forms and form controls, <base>/<meta>/<link>, <svg>/<math>, audio/video, style and on… attributes, srcdoc, formaction, javascript:/vbscript: URLs, data: URLs other than a base64 PNG/GIF/JPEG/WebP/AVIF/BMP image in <img src>. Any other tag is an unknown element. HTML comments are dropped.',
    '',
  ];
  for (const spec of ELEMENTS) {
    lines.push(`<${spec.name}> (${CONTENT_TEXT[spec.content]}): ${spec.description}`);
    const required = spec.attributes.filter((a) => a.required);
    const optional = spec.attributes.filter((a) => !a.required);
    if (required.length > 0) lines.push(`  required: ${required.map(describeAttribute).join('; ')}`);
    if (optional.length > 0) lines.push(`  optional: ${optional.map(describeAttribute).join('; ')}`);
  }
  return lines.join('\n') + '\n';
}
