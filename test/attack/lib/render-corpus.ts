/**
 * Issue 31's hostile corpus: topics with a hostile payload in every slot where text or a URL enters a
 * topic (every attribute brv renders, element text, list and table text, code, diagrams, link and image
 * URLs), plus planted blobs and model replies. Shared by test/attack/render-oracle.test.ts (the base
 * corpus and a short fuzz) and bench/attack/render-oracle.ts (every encoding variant, long fuzz).
 *
 * Every vector is a full topic, written as HTML source the way a push or an agent would send it: the
 * payload is the attribute's value or the element's text (markup escaped with `attribute()`/`text()`),
 * so what the validator (or a reader of a planted blob) sees is exactly the payload.
 */
import fc from 'fast-check';
import { attribute, PAYLOADS, PLANTED_BLOBS, text } from '../../helpers/hostile.js';

export interface RenderVector {
  /** Stable name: slot, payload index, encoding. */
  id: string;
  slot: string;
  /** The value as the topic holds it (after HTML decoding). */
  payload: string;
  html: string;
}

/**
 * The breakout shapes as a URL that begins with "<" and holds no space (stored as a relative
 * URL, once written as a bare destination), and the same shapes with spaces where a space is harmless.
 */
export const BREAKOUTS: readonly string[] = [
  '<script>document.title=31337</script>',
  '<style>*{background:url(javascript:alert(1))}</style>',
  '</p><img/src=x/onerror=alert(1)>',
  '<noscript><p/title="</noscript><img/src=x/onerror=alert(1)>">',
  '<?xml?><img/src=x/onerror=alert(1)>',
  '<![CDATA[<img/src=x/onerror=alert(1)>]]>',
  '<x-x/onclick=alert(1)>arbitrary</x-x>',
  '<svg/onload=alert(1)>',
  '<iframe/src=javascript:alert(1)>',
  '<details/open/ontoggle=alert(1)>',
  '<a/href=javascript:alert(1)>x</a>',
  '<!--x--><img/src=x/onerror=alert(1)>',
  '<math><mtext><img/src=x/onerror=alert(1)>',
  '<template><script>alert(1)</script></template>',
  '<base/href=javascript:alert(1)//>',
  '<meta/http-equiv=refresh/content=0;url=javascript:alert(1)>',
  '<object/data=javascript:alert(1)>',
  '<embed/src=javascript:alert(1)>',
  '<form/action=javascript:alert(1)><button>x</button></form>',
  '<link/rel=stylesheet/href=javascript:alert(1)>',
  '<video><source/onerror=alert(1)></video>',
  '<audio/src=x/onerror=alert(1)>',
  '<img src=x onerror=alert(1)>',
  '<scr<script>ipt>alert(1)</script>',
];

/** URLs (href, src) a hostile topic may carry: dangerous schemes in every disguise, and destinations that try to break out of `(…)`. */
export const URL_PAYLOADS: readonly string[] = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  'java\tscript:alert(1)',
  'java\nscript:alert(1)',
  ' javascript:alert(1)',
  '\u0001javascript:alert(1)',
  '\u00a0javascript:alert(1)',
  'javascript&colon;alert(1)',
  '&#106;avascript:alert(1)',
  'javascript&#58;alert(1)',
  'javascript&#x3a;alert(1)',
  'jav&#x09;ascript:alert(1)',
  'jav&Tab;ascript:alert(1)',
  'javascript%3Aalert(1)',
  '%6Aavascript:alert(1)',
  'javascript://%0aalert(1)',
  'javascript:/*</a>*/alert(1)',
  'vbscript:msgbox(1)',
  'VBScript:msgbox(1)',
  'data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==',
  'data:image/svg+xml,<svg onload=alert(1)>',
  'DaTa:text/html,<script>alert(1)</script>',
  'https://ok.example/)<script>alert(1)</script>',
  'https://ok.example/>"<script>alert(1)</script>',
  'https://ok.example/ "t" <script>alert(1)</script>',
  'https://ok.example/<svg/onload=alert(1)>',
  'https://ok.example/?q=<img src=x onerror=alert(1)>',
  'https://ok.example/#"><img src=x onerror=alert(1)>',
  'https://ok.example/](javascript:alert(1))',
  'https://ok.example/\n<script>alert(1)</script>',
  'https://ok.example/%3Cscript%3E',
  'x" onmouseover="alert(1)',
  "x' onmouseover='alert(1)",
  '#<script>alert(1)</script>',
  '?<script>alert(1)</script>',
  '/<script>alert(1)</script>',
  './<svg/onload=alert(1)>',
  '\\<script>alert(1)</script>',
  '<https://ok.example/>',
  '<javascript:alert(1)>',
  '[x](javascript:alert(1))',
  'mailto:<script>alert(1)</script>@x',
  'mailto:x@y"><script>alert(1)</script>',
  '//ok.example/<script>alert(1)</script>',
  '%3Cscript%3Ealert(1)%3C/script%3E',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '&#60;script&#62;alert(1)&#60;/script&#62;',
  '<',
  '<>',
  '<a',
  'a>b',
  '()',
  '\\',
  '`<script>`',
];

/** Text payloads: the shared PAYLOADS, the breakouts, and markdown-level tricks. */
export const TEXT_PAYLOADS: readonly string[] = [
  ...PAYLOADS,
  ...BREAKOUTS,
  '</code></pre><script>alert(1)</script>',
  '```\n</code><script>alert(1)</script>\n```',
  '~~~ <img src=x onerror=alert(1)>',
  '<div>\n<script>alert(1)</script>\n</div>',
  '<!-- <img src=x onerror=alert(1)> -->',
  '<![CDATA[ x ]]><img src=x onerror=alert(1)>',
  '<?php echo 1 ?><img src=x onerror=alert(1)>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '&#x3c;script&#x3e;alert(1)&#x3c;/script&#x3e;',
  '&amp;lt;script&amp;gt;alert(1)',
  '%3Cscript%3Ealert(1)%3C/script%3E',
  '\\\\<img src=x onerror=alert(1)>',
  '\\&lt;img src=x onerror=alert(1)>',
  '&lt;img src=x onerror=alert(1)&gt; <b onclick=alert(1)>b</b>',
  '*<img src=x onerror=alert(1)>*',
  '_<svg onload=alert(1)>_',
  '[<img src=x onerror=alert(1)>](https://ok.example/)',
  '[a](<script>alert(1)</script>)',
  '![a](<img src=x onerror=alert(1)>)',
  '<a href="&#106;avascript:alert(1)">x</a>',
  '<a href=java&#x09;script:alert(1)>x</a>',
  '[a][b]\n\n[b]: <script>alert(1)</script>',
  '| <script>alert(1)</script> | x |\n|---|---|',
  '> <img src=x onerror=alert(1)>',
  '- <img src=x onerror=alert(1)>',
  '1. <img src=x onerror=alert(1)>',
  '    <img src=x onerror=alert(1)>',
  '<http://x/<img src=x onerror=alert(1)>>',
  '<mailto:x@y><img src=x onerror=alert(1)>',
  '<x@y.example>',
  'a <b> c',
  'x < y > z && a',
  '<',
  '&',
  '\u200b<script>alert(1)</script>',
  '\uff1cscript\uff1ealert(1)\uff1c/script\uff1e',
];

/** Ways a payload is disguised before it is put in a slot (the bench uses all, the test the first three). */
export const ENCODINGS: ReadonlyArray<{ name: string; encode: (value: string) => string }> = [
  { name: 'raw', encode: (v) => v },
  { name: 'entity', encode: (v) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;') },
  { name: 'percent', encode: (v) => v.replace(/[<>"' ]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}`) },
  { name: 'decimal', encode: (v) => v.replace(/[<>&"]/g, (c) => `&#${c.charCodeAt(0)};`) },
  { name: 'hex', encode: (v) => v.replace(/[<>&"]/g, (c) => `&#x${c.charCodeAt(0).toString(16)};`) },
  { name: 'double', encode: (v) => v.replace(/&/g, '&amp;amp;').replace(/</g, '&amp;lt;').replace(/>/g, '&amp;gt;') },
  { name: 'backslash', encode: (v) => v.replace(/[<>[\]()]/g, (c) => `\\${c}`) },
  { name: 'case', encode: (v) => v.replace(/[a-z]/g, (c, i: number) => (i % 2 ? c.toUpperCase() : c)) },
  { name: 'spaced', encode: (v) => v.replace(/</g, '< ').replace(/:/g, ' :') },
];

/** Where a value goes in a topic. `a` is the value as an attribute, `t` as text (both HTML source). */
interface Slot {
  name: string;
  kind: 'text' | 'url';
  /** bv-topic attributes (HTML source, already escaped) this slot sets. */
  attributes?: (a: string) => Record<string, string>;
  /** What this slot puts inside bv-topic. */
  body?: (a: string, t: string) => string;
}

const topicAttribute = (name: string): Slot => ({ name: `topic ${name}`, kind: 'text', attributes: (a) => ({ [name]: a }) });
const inBody = (name: string, body: (a: string, t: string) => string, kind: Slot['kind'] = 'text'): Slot => ({ name, kind, body });

export const SLOTS: readonly Slot[] = [
  ...['title', 'summary', 'tags', 'keywords', 'related', 'path'].map(topicAttribute),
  { name: 'related (@path)', kind: 'text', attributes: (a) => ({ related: `@${a}.html,@ok/x.html` }) },
  inBody('rule text', (_, t) => `<bv-rule severity="must">${t}</bv-rule>`),
  inBody('rule id', (a) => `<bv-rule id="${a}" severity="should">Rule.</bv-rule>`),
  inBody('rule severity', (a) => `<bv-rule severity="${a}">Rule.</bv-rule>`),
  inBody('decision id', (a) => `<bv-decision id="${a}"><p>Decision.</p></bv-decision>`),
  inBody('decision text', (_, t) => `<bv-decision id="d-1"><p>${t}</p></bv-decision>`),
  inBody('bug id', (a) => `<bv-bug id="${a}" severity="high">Bug.</bv-bug>`),
  inBody('bug severity', (a) => `<bv-bug id="b-1" severity="${a}">Bug.</bv-bug>`),
  inBody('fix id', (a) => `<bv-fix id="${a}">Fix.</bv-fix>`),
  inBody('fact subject', (a) => `<bv-fact subject="${a}" value="15 minutes" category="project">Fact.</bv-fact>`),
  inBody('fact value', (a) => `<bv-fact subject="ttl" value="${a}" category="project">Fact.</bv-fact>`),
  inBody('fact category', (a) => `<bv-fact subject="ttl" value="v" category="${a}">Fact.</bv-fact>`),
  inBody('fact text', (_, t) => `<bv-fact subject="ttl">${t}</bv-fact>`),
  inBody('pattern description', (a) => `<bv-pattern description="${a}" flags="i">^a+$</bv-pattern>`),
  inBody('pattern flags', (a) => `<bv-pattern description="d" flags="${a}">^a+$</bv-pattern>`),
  inBody('pattern text', (_, t) => `<bv-pattern flags="i">${t}</bv-pattern>`),
  inBody('diagram title', (a) => `<bv-diagram title="${a}" type="mermaid">graph TD; A--&gt;B</bv-diagram>`),
  inBody('diagram type', (a) => `<bv-diagram title="Flow" type="${a}">graph TD; A--&gt;B</bv-diagram>`),
  inBody('diagram text', (_, t) => `<bv-diagram title="Flow" type="ascii">${t}</bv-diagram>`),
  inBody('task', (_, t) => `<bv-task>${t}</bv-task>`),
  inBody('flow', (_, t) => `<bv-flow>${t}</bv-flow>`),
  inBody('timestamp', (_, t) => `<bv-timestamp>${t}</bv-timestamp>`),
  inBody('author', (_, t) => `<bv-author>${t}</bv-author>`),
  inBody('reason text', (_, t) => `<bv-reason>${t}</bv-reason>`),
  inBody('paragraph', (_, t) => `<bv-reason><p>${t}</p><p>after</p></bv-reason>`),
  inBody('heading', (_, t) => `<bv-structure><h2>${t}</h2><h4>x ${t}</h4></bv-structure>`),
  inBody('list item', (_, t) => `<bv-structure><ul><li>${t}</li><li>b</li></ul></bv-structure>`),
  inBody('ordered item', (_, t) => `<bv-structure><ol start="3"><li>${t}</li></ol></bv-structure>`),
  inBody('nested item', (_, t) => `<bv-structure><ul><li>a<ul><li>${t}</li></ul></li></ul></bv-structure>`),
  inBody('bare list text', (_, t) => `<bv-structure><ul>${t}<li>a</li>${t}</ul><ol>${t}<li>b</li></ol></bv-structure>`),
  inBody('changes item', (_, t) => `<bv-changes><li>${t}</li>${t}<li>b</li></bv-changes>`),
  inBody('files item', (_, t) => `<bv-files><li><code>${t}</code> ${t}</li></bv-files>`),
  inBody('definition list', (_, t) => `<bv-structure><dl><dt>${t}</dt><dd>${t}</dd></dl></bv-structure>`),
  inBody(
    'table cell',
    (_, t) => `<bv-structure><table><tr><th>${t}</th><th>h</th></tr><tr><td>x</td><td>${t}</td></tr></table></bv-structure>`,
  ),
  inBody('table caption', (_, t) => `<bv-structure><table><caption>${t}</caption><tr><td>x</td></tr></table></bv-structure>`),
  inBody('blockquote', (_, t) => `<bv-highlights><blockquote><p>${t}</p></blockquote></bv-highlights>`),
  inBody('details summary', (_, t) => `<bv-highlights><details><summary>${t}</summary><p>${t}</p></details></bv-highlights>`),
  inBody('abbr title', (a) => `<bv-highlights><p>Why <abbr title="${a}">CI</abbr></p></bv-highlights>`),
  inBody('abbr text', (_, t) => `<bv-highlights><p><abbr title="T">${t}</abbr></p></bv-highlights>`),
  inBody(
    'phrasing',
    (_, t) =>
      `<bv-reason><p><strong>${t}</strong> <em>${t}</em> <kbd>${t}</kbd> <q>${t}</q> <s>${t}</s> <del>${t}</del> <sup>${t}</sup> <mark>${t}</mark> <cite>${t}</cite> <span>${t}</span></p></bv-reason>`,
  ),
  inBody('inline code', (_, t) => `<bv-reason><p>run <code>${t}</code> then <code>\`${t}\`</code></p></bv-reason>`),
  inBody('code block', (_, t) => `<bv-examples><pre><code>${t}</code></pre></bv-examples>`),
  inBody('code language', (a) => `<bv-examples><pre><code class="language-${a}">x = 1</code></pre></bv-examples>`),
  inBody('pre text', (_, t) => `<bv-examples><pre>${t}</pre></bv-examples>`),
  inBody('line breaks', (_, t) => `<bv-reason><p>${t}<br>${t}</p><hr><p>${t}</p></bv-reason>`),
  inBody('time and data', (a, t) => `<bv-reason><p><time datetime="${a}">${t}</time> <data value="${a}">${t}</data></p></bv-reason>`),
  inBody('link text', (_, t) => `<bv-reason><a href="https://ok.example/">${t}</a></bv-reason>`),
  inBody('link title', (a) => `<bv-reason><a href="https://ok.example/" title="${a}">x</a></bv-reason>`),
  inBody('image alt', (a) => `<bv-reason><img src="https://ok.example/i.png" alt="${a}"></bv-reason>`),
  inBody('image title', (a) => `<bv-reason><img src="https://ok.example/i.png" alt="i" title="${a}"></bv-reason>`),
  inBody('link href', (a) => `<bv-reason><a href="${a}">the runbook</a></bv-reason>`, 'url'),
  inBody('image src', (a) => `<bv-reason><img src="${a}" alt="i"></bv-reason>`, 'url'),
  inBody('link href in a list', (a) => `<bv-structure><ul><li><a href="${a}">l</a></li></ul></bv-structure>`, 'url'),
  inBody('link href in a table', (a) => `<bv-structure><table><tr><td><a href="${a}">t</a></td></tr></table></bv-structure>`, 'url'),
  inBody('image src in a link', (a) => `<bv-reason><a href="https://ok.example/"><img src="${a}" alt="i"></a></bv-reason>`, 'url'),
];

const DEFAULTS: Record<string, string> = {
  path: 'hostile/v',
  title: 'Hostile',
  summary: 'S',
  tags: 'a,b',
  keywords: 'k',
  related: '@ok/x.html',
};

/** A topic with `value` in each of `slots` (the bv-topic attributes of the last one that sets them win). */
export function topicWith(slots: ReadonlyArray<{ slot: Slot; value: string }>): string {
  const attributes = { ...DEFAULTS };
  const bodies: string[] = [];
  for (const { slot, value } of slots) {
    Object.assign(attributes, slot.attributes?.(attribute(value)));
    const body = slot.body?.(attribute(value), text(value));
    if (body) bodies.push(body);
  }
  const attrs = Object.entries(attributes)
    .map(([name, value]) => ` ${name}="${value}"`)
    .join('');
  return `<bv-topic${attrs}>\n${bodies.join('\n')}\n<bv-reason>zebra</bv-reason>\n</bv-topic>\n`;
}

/**
 * The corpus: every slot with every payload of its kind (text slots: TEXT_PAYLOADS; URL slots:
 * URL_PAYLOADS and the breakouts), each through the first `encodings` ENCODINGS (default: raw, entity,
 * percent for the breakouts; raw for the rest). `stride` n > 1 keeps one slot-payload pair in n, the
 * pairs shifted slot by slot so every payload still meets several slots and every slot several
 * payloads; the link and image URL slots always keep every breakout (the finding 1).
 */
export function renderCorpus(options: { encodings?: number; stride?: number } = {}): RenderVector[] {
  const vectors: RenderVector[] = [];
  const breakouts = new Set(BREAKOUTS);
  const stride = options.stride ?? 1;
  for (const [slotIndex, slot] of SLOTS.entries()) {
    const payloads = slot.kind === 'url' ? [...URL_PAYLOADS, ...BREAKOUTS] : TEXT_PAYLOADS;
    payloads.forEach((payload, index) => {
      const always = slot.kind === 'url' && breakouts.has(payload) && /^(link href|image src)$/.test(slot.name);
      if (!always && (index + slotIndex) % stride !== 0) return;
      const count = options.encodings ?? (breakouts.has(payload) ? 3 : 1);
      for (const { name, encode } of ENCODINGS.slice(0, count)) {
        const value = encode(payload);
        vectors.push({ id: `${slot.name}#${index}/${name}`, slot: slot.name, payload: value, html: topicWith([{ slot, value }]) });
      }
    });
  }
  return vectors;
}

/**
 * Blobs a push could carry (never validated): the shared planted blobs, and the corpus's breakouts in
 * places the validator would refuse (enum attributes, raw elements, attributes on bv-topic).
 */
export function plantedCorpus(): RenderVector[] {
  const vectors: RenderVector[] = PLANTED_BLOBS.map((html, index) => ({
    id: `planted#${index}`,
    slot: 'planted blob',
    payload: html,
    html,
  }));
  BREAKOUTS.forEach((payload, index) => {
    for (const html of [
      `<bv-topic path="p/b" title="${attribute(payload)}"><bv-rule severity="${attribute(payload)}">r</bv-rule><bv-diagram type="${attribute(payload)}">x</bv-diagram><bv-fact category="${attribute(payload)}">f</bv-fact><bv-bug severity="${attribute(payload)}">b</bv-bug></bv-topic>`,
      `<bv-topic path="p/b" title="T"><bv-reason>${payload}</bv-reason><bv-structure><ul>${payload}<li>${payload}</li></ul></bv-structure></bv-topic>`,
      `<bv-topic path="p/b" title="T"><bv-reason><a href="${attribute(payload)}">r</a><img src="${attribute(payload)}" alt="${attribute(payload)}"></bv-reason></bv-topic>`,
      `<bv-topic path="${attribute(payload)}" title="T" related="@${attribute(payload)}.html"><bv-pattern>${payload}</bv-pattern><bv-examples><pre><code class="language-${attribute(payload)}">${payload}</code></pre></bv-examples></bv-topic>`,
    ]) {
      vectors.push({ id: `planted-breakout#${index}/${vectors.length}`, slot: 'planted blob', payload, html });
    }
  });
  return vectors;
}

/** Hostile model replies for the self-driven `brv curate` (the reply's JSON: html and meta). */
export const MODEL_CURATE_REPLIES: readonly string[] = [
  // The exact finding: a low-impact topic whose link is a <script>.
  JSON.stringify({
    html: '<bv-topic path="ops/runbook" title="Runbook"><bv-reason><a href="&lt;script&gt;document.title=31337&lt;/script&gt;">the runbook</a> zebra</bv-reason></bv-topic>',
    meta: { impact: 'low' },
  }),
  JSON.stringify({
    html: `<bv-topic path="ops/title" title="${attribute('<img src=x onerror=alert(1)>')}" summary="${attribute('[x](javascript:alert(1))')}"><bv-rule severity="must">${text('<svg/onload=alert(1)>')} zebra</bv-rule><bv-reason><img src="${attribute('</p><img/src=x/onerror=alert(1)>')}" alt="i"></bv-reason></bv-topic>`,
    meta: { impact: 'low' },
  }),
];

/** Hostile answers a model may give to `brv query --answer` (each cites the topic it was shown). */
export const MODEL_ANSWERS: readonly string[] = [
  '<script>document.title=31337</script> See [ops/runbook].',
  '# \\<img src=x onerror=alert(1)>\n\n[click](javascript:alert(1)) [ops/runbook]',
  '![x](data:text/html,<script>alert(1)</script>) <svg onload=alert(1)> [ops/runbook]',
  '<a href="java&#x09;script:alert(1)">runbook</a> [ops/runbook]',
  '[a](<script>alert(1)</script>) <details open ontoggle=alert(1)> [ops/runbook]',
];

/** Fragments the fuzzer glues into slot values: markup openers, URL schemes, escapes, whitespace. */
const FRAGMENTS: readonly string[] = [
  '<',
  '>',
  '</',
  '/>',
  '&',
  '&lt;',
  '&gt;',
  '&#60;',
  '&#x3c;',
  '&amp;',
  '&colon;',
  '&Tab;',
  '%3C',
  '%3E',
  '"',
  "'",
  '`',
  '```',
  '~~~',
  '\\',
  '[',
  ']',
  '(',
  ')',
  '](',
  '![',
  '*',
  '_',
  '#',
  '|',
  '-',
  '1.',
  '=',
  ':',
  '/',
  ' ',
  '  ',
  '\n',
  '\t',
  '\n\n',
  'script',
  'style',
  'img',
  'svg',
  'iframe',
  'noscript',
  'a',
  'x-y',
  ' src=x',
  ' onerror=alert(1)',
  '/onload=alert(1)',
  ' href=',
  'javascript:',
  'JaVaScRiPt:',
  'java\tscript:',
  'vbscript:',
  'data:',
  'alert(1)',
  'https://ok.example/',
  'mailto:x@y',
  '<!--',
  '-->',
  '<?',
  '?>',
  '<![CDATA[',
  ']]>',
  '<script>',
  '</script>',
  '<img src=x onerror=alert(1)>',
  '</p>',
  'zebra',
  'é',
  '\u00a0',
  '\u2028',
];

/** A value glued from fragments and arbitrary characters. */
const hostileValue = fc
  .array(fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...FRAGMENTS) }, { weight: 1, arbitrary: fc.string({ maxLength: 4 }) }), {
    minLength: 1,
    maxLength: 14,
  })
  .map((parts) => parts.join(''));

/** A topic with hostile values in one to five slots. */
export const hostileTopic = fc
  .array(fc.record({ slot: fc.constantFrom(...SLOTS), value: hostileValue }), { minLength: 1, maxLength: 5 })
  .map((slots) => ({ slots: slots.map((s) => `${s.slot.name}=${JSON.stringify(s.value)}`), html: topicWith(slots) }));

/** `count` generated topics for `seed` (reproducible). */
export function fuzzedTopics(seed: number, count: number): Array<{ slots: string[]; html: string }> {
  return fc.sample(hostileTopic, { seed, numRuns: count });
}
