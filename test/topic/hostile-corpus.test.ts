import test from 'ava';
import { readFileSync } from 'node:fs';
import type { Element, Nodes } from 'hast';
import { renderTopicMarkdown, validateTopicHtml } from '../../src/topic/index.js';
import { TOPIC_ERROR_KINDS } from '../../src/topic/error-kinds.js';
import { parseTopicHtml } from '../../src/topic/parse.js';
import { BLOCK_TAGS, INLINE_TAGS } from '../../src/topic/registry.js';
import { readStoredTopic } from '../../src/topic/stored.js';
import { attributesOf } from '../../src/topic/hast.js';
import { renderFailures } from '../helpers/hostile.js';
import { seededRandom } from '../helpers/random.js';

interface Vector {
  readonly note: string;
  readonly kind: keyof typeof TOPIC_ERROR_KINDS;
  readonly html: string;
}

/** fixtures/hostile-html/vectors.json: each vector with the error kind it must get. */
const VECTORS = JSON.parse(readFileSync(new URL('../../fixtures/hostile-html/vectors.json', import.meta.url), 'utf8')) as Vector[];

test('the hostile corpus has at least 200 vectors, each refused with its typed kind', (t) => {
  t.true(VECTORS.length >= 200, `${VECTORS.length} vectors`);
  const misses: string[] = [];
  for (const vector of VECTORS) {
    const result = validateTopicHtml(vector.html);
    if (result.ok) {
      misses.push(`${vector.note}: accepted`);
      continue;
    }
    const kinds = result.errors.map((e) => e.kind);
    if (!kinds.includes(vector.kind)) misses.push(`${vector.note}: ${kinds.join(', ')} (expected ${vector.kind})`);
    for (const error of result.errors) {
      if (!(error.kind in TOPIC_ERROR_KINDS)) misses.push(`${vector.note}: untyped kind ${error.kind}`);
      if (error.message.length < 20) misses.push(`${vector.note}: message "${error.message}" says too little`);
    }
  }
  t.deepEqual(misses, []);
});

test('unsafe-html is only for danger: no vector of harmless unknown markup gets it', (t) => {
  for (const vector of VECTORS.filter((v) => v.kind === 'unknown-element')) {
    const result = validateTopicHtml(vector.html);
    t.false(!result.ok && result.errors.some((e) => e.kind === 'unsafe-html' || e.kind === 'invalid-nesting'), vector.note);
  }
});

// What a stored or rendered topic may hold, stated independently of safety.ts.
const ALLOWED_TAGS = new Set([...INLINE_TAGS, ...BLOCK_TAGS]);
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'cite',
  'action',
  'formaction',
  'srcset',
  'poster',
  'background',
  'data',
  'xlink:href',
  'ping',
]);
// Any name starting "data" (the sanitizer's data* rule keeps odd ones a malformed tag makes, e.g. `data:x`): no browser
// gives an unknown attribute meaning.
const INERT_ATTRIBUTE =
  /^(?:id|title|class|lang|dir|data\S*|href|src|cite|alt|width|height|datetime|value|open|start|reversed|type|colspan|rowspan|headers|scope|abbr|align|hreflang|rel|target)$/;

/** Problems that make a topic tree dangerous to store or serve; empty when inert. */
function dangerIn(root: Nodes): string[] {
  const problems: string[] = [];
  const stack: Nodes[] = [root];
  for (let next = stack.pop(); next !== undefined; next = stack.pop()) {
    if (next.type === 'comment') problems.push('a comment');
    if (next.type === 'element') {
      const element: Element = next;
      if (!ALLOWED_TAGS.has(element.tagName) && !element.tagName.startsWith('bv-')) problems.push(`<${element.tagName}>`);
      for (const [name, value] of attributesOf(element)) {
        if (!element.tagName.startsWith('bv-') && !INERT_ATTRIBUTE.test(name)) problems.push(`${name} on <${element.tagName}>`);
        if (/^on/i.test(name) || name === 'style' || name === 'srcdoc') problems.push(`${name} on <${element.tagName}>`);
        // eslint-disable-next-line no-control-regex
        const url = value.replace(/[\s\u0000-\u001f]/g, '').toLowerCase();
        if (URL_ATTRIBUTES.has(name) && /^[a-z][a-z0-9+.-]*:/.test(url) && !/^(?:https?|mailto):/.test(url)) {
          problems.push(`${name}="${value}" on <${element.tagName}>`);
        }
      }
    }
    if ('children' in next) for (const child of next.children) stack.push(child);
  }
  return problems;
}

/** The same mutants on every run, so a failure reproduces. */
const random = seededRandom;

const NOISE = [
  ' ',
  '\t',
  '\n',
  '/',
  '"',
  "'",
  '<',
  '>',
  '`',
  '=',
  '&#x09;',
  '&#10;',
  '&#0;',
  '\u200b',
  '<!--',
  '-->',
  '&lt;',
  '<b>',
  '</p>',
  ':',
];
const OWNERS = ['bv-reason', 'bv-rule', 'bv-examples', 'bv-fact', 'bv-highlights', 'bv-pattern', 'bv-diagram'];
const WRAPPERS = [
  ['<details><summary>s</summary>', '</details>'],
  ['<figure>', '<figcaption>c</figcaption></figure>'],
  ['<div class="x" data-a="1">', '</div>'],
  ['<section lang="en"><p>', '</p></section>'],
  ['<mark>', '</mark>'],
  ['<q cite="https://ok.example">', '</q>'],
];

function mutate(html: string, next: () => number): string {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!;
  const at = () => Math.floor(next() * (html.length + 1));
  const rounds = 1 + Math.floor(next() * 3);
  for (let round = 0; round < rounds; round++) {
    const where = at();
    switch (Math.floor(next() * 7)) {
      case 0: // flip the case of a stretch
        html = html.slice(0, where) + html.slice(where, where + 8).toUpperCase() + html.slice(where + 8);
        break;
      case 1:
        html = html.slice(0, where) + pick(NOISE) + html.slice(where);
        break;
      case 2: {
        // encode one character as a decimal or hex reference
        const char = html.codePointAt(where);
        if (char !== undefined && char !== 0x3c && char !== 0x3e) {
          const encoded = next() < 0.5 ? `&#${char};` : `&#x${char.toString(16)};`;
          html = html.slice(0, where) + encoded + html.slice(where + String.fromCodePoint(char).length);
        }
        break;
      }
      case 3:
        html = html.slice(0, where) + html.slice(where + 1 + Math.floor(next() * 4));
        break;
      case 4: {
        const end = Math.min(html.length, where + Math.floor(next() * 30));
        html = html.slice(0, end) + html.slice(where, end) + html.slice(end);
        break;
      }
      case 5: {
        const owner = pick(OWNERS);
        html = html.replace(/<(\/?)bv-structure>/g, `<$1${owner}>`);
        break;
      }
      default: {
        const [open, close] = pick(WRAPPERS);
        html = html.replace('<bv-structure>', `<bv-structure>${open}`).replace('</bv-structure>', `${close}</bv-structure>`);
      }
    }
  }
  return html;
}

test('fuzz: mutants of the corpus are refused, or stored and rendered inert', (t) => {
  const next = random(11);
  let accepted = 0;
  let total = 0;
  const failures: string[] = [];
  const rendered: Array<[string, string]> = [];
  const started = Date.now();
  for (const vector of VECTORS) {
    for (let i = 0; i < 6; i++) {
      const html = mutate(vector.html, next);
      total++;
      const result = validateTopicHtml(html);
      if (result.ok) {
        accepted++;
        // What would be stored: the canonical form, re-parsed as a reader would.
        const stored = parseTopicHtml(result.topic.canonicalHtml);
        for (const problem of dangerIn(stored)) failures.push(`stored ${problem} from ${JSON.stringify(html)}`);
        rendered.push([`rendered from ${JSON.stringify(html)}`, renderTopicMarkdown(result.topic.root)]);
        const again = validateTopicHtml(result.topic.canonicalHtml);
        if (!again.ok || again.topic.canonicalHtml !== result.topic.canonicalHtml)
          failures.push(`canonical form unstable: ${JSON.stringify(html)}`);
      }
      // The same bytes planted by a push that never met the validator: read and rendered inert.
      const read = readStoredTopic(html);
      if (read.ok) {
        for (const problem of dangerIn(read.root)) failures.push(`read ${problem} from ${JSON.stringify(html)}`);
        rendered.push([`read+rendered from ${JSON.stringify(html)}`, renderTopicMarkdown(read.root)]);
      }
    }
  }
  failures.push(...renderFailures(rendered));
  t.deepEqual(failures.slice(0, 10), [], `${failures.length} failures`);
  t.true(total >= 1500, `${total} mutants`);
  t.log(`${total} mutants, ${accepted} accepted (all inert), ${Date.now() - started} ms`);
});
