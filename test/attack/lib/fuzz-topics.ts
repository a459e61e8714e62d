/**
 * Campaign 2, fuzzed topics: hostile and random topic HTML goes through the real validator, and
 * whatever it accepts (the canonical form, which is exactly what the writer stores) must re-parse,
 * with a standard HTML parser, to nothing executable and must validate again. Shared by
 * test/attack/fuzz-topics.test.ts (a few thousand cases) and bench/attack/fuzz-topics.ts (100,000+).
 */
import fc from 'fast-check';
import type { Element, Root, RootContent } from 'hast';
import rehypeParse from 'rehype-parse';
import { unified } from 'unified';
import { validateTopicHtml } from '../../../src/topic/validate.js';
import { FORBIDDEN_TAGS } from '../../helpers/hostile.js';
import { testProcesses } from '../../helpers/processes.js';

/** Attributes whose value a browser or markdown renderer follows as a URL. */
const URL_ATTRIBUTES = new Set([
  'href',
  'src',
  'cite',
  'action',
  'formaction',
  'xlinkHref',
  'poster',
  'background',
  'longDesc',
  'useMap',
  'codeBase',
  'data',
  'manifest',
  'icon',
  'srcSet',
  'ping',
  'profile',
  'classId',
  'archive',
]);
const BAD_SCHEME = /^(javascript|data|vbscript):/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;

const independentParser = unified().use(rehypeParse, { fragment: true });

/** Every way a stored topic could carry executable content; empty when it carries none. */
export function unsafeParts(stored: string): string[] {
  const problems: string[] = [];
  const visit = (node: Root | RootContent): void => {
    if (node.type === 'comment') problems.push(`comment <!--${node.value.slice(0, 40)}-->`);
    if (node.type === 'element') checkElement(node, problems);
    if ('children' in node) for (const child of node.children) visit(child);
    if (node.type === 'element' && node.content) visit(node.content);
  };
  visit(independentParser.parse(stored));
  // Entity-encoded controls (ESC, BEL…) were once decoded and stored raw, reaching terminals.
  if (CONTROL.test(stored)) problems.push('a control character is stored');
  const again = validateTopicHtml(stored);
  if (!again.ok) problems.push(`stored form fails validation: ${again.errors.map((e) => e.kind).join(', ')}`);
  else if (again.topic.canonicalHtml !== stored) problems.push('stored form is not canonical (changes when resent)');
  return problems;
}

function checkElement(element: Element, problems: string[]): void {
  if (FORBIDDEN_TAGS.has(element.tagName)) problems.push(`<${element.tagName}>`);
  for (const [name, value] of Object.entries(element.properties)) {
    if (/^on/i.test(name)) problems.push(`event handler ${name} on <${element.tagName}>`);
    if (name === 'style') problems.push(`style attribute on <${element.tagName}>`);
    if (URL_ATTRIBUTES.has(name)) {
      const values = Array.isArray(value) ? value : [value];
      for (const v of values) {
        // What a browser does before reading the scheme: drop whitespace and controls, ignore case.
        // eslint-disable-next-line no-control-regex
        const url = String(v)
          .replace(/[\s\u0000-\u001f\u007f]/g, '')
          .toLowerCase();
        if (BAD_SCHEME.test(url)) problems.push(`${name}="${String(v).slice(0, 40)}" on <${element.tagName}>`);
      }
    }
  }
}

// ---- the generator -------------------------------------------------------------------------

const HOSTILE_URLS = [
  'javascript:alert(1)',
  'JaVaScRiPt:alert(1)',
  ' javascript:alert(1)',
  'java\tscript:alert(1)',
  'java&#x09;script:alert(1)',
  '&#106;avascript:alert(1)',
  '&#x6A;avascript&colon;alert(1)',
  'javascript&#58;alert(1)',
  '\u0001javascript:alert(1)',
  'data:text/html,<script>alert(1)</script>',
  'DATA:image/svg+xml;base64,PHN2Zz4=',
  'vbscript:msgbox(1)',
  'jav&#x0A;ascript:alert(1)',
  'https://example.com/ok',
  'http://example.com/?q=javascript:x',
  'mailto:a@example.com',
  '/relative/path',
  '#anchor',
  '//evil.example.com',
  'HTTPS://example.com',
];

const HOSTILE_FRAGMENTS = [
  '<script>alert(1)</script>',
  '<SCRIPT SRC=//x.example/x.js></SCRIPT>',
  '<scr<script>ipt>alert(1)</script>',
  '<style>*{display:none}</style>',
  '<iframe src="javascript:alert(1)"></iframe>',
  '<object data="x.swf"></object>',
  '<embed src="x">',
  '<form action="https://evil.example"><input name=x></form>',
  '<svg onload=alert(1)><circle/></svg>',
  '<svg><script>alert(1)</script></svg>',
  '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
  '<img src=x onerror=alert(1)>',
  '<img src="x" OnError="alert(1)">',
  '<p onclick="alert(1)">x</p>',
  '<a href="javascript:alert(1)">x</a>',
  '<!-- a comment -->',
  '<!--><script>alert(1)</script>-->',
  '<!--[if IE]><script>alert(1)</script><![endif]-->',
  '<![CDATA[<script>alert(1)</script>]]>',
  '<template><script>alert(1)</script></template>',
  '<noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript>',
  '<textarea><script>alert(1)</script></textarea>',
  '<xmp><script>alert(1)</script></xmp>',
  '<plaintext><script>',
  '<base href="javascript:/">',
  '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
  '<link rel=stylesheet href=x>',
  '<details open ontoggle=alert(1)>',
  '<a href="https://ok.example" style="color:red">x</a>',
  '<span class="x">y</span>',
  '<bv-topic path="nested/topic" title="n"></bv-topic>',
  '</bv-topic><script>alert(1)</script>',
  '<bv-rule onmouseover="alert(1)">x</bv-rule>',
  '<bv-rule severity="must" style="x">y</bv-rule>',
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '&#x3C;img src=x onerror=alert(1)&#x3E;',
  '&#60;!-- x --&#62;',
  '<',
  '>',
  '&',
  '"',
  "'",
  '</',
  '<!',
  '<!--',
  '-->',
  '\u0000',
  '\u001b]0;PWNED\u0007',
  '\u202e',
  '\ud800',
];

const BV_BLOCKS = ['bv-reason', 'bv-structure', 'bv-dependencies', 'bv-highlights', 'bv-examples', 'bv-decision', 'bv-fix'];
const BV_INLINE = ['bv-rule', 'bv-task', 'bv-flow', 'bv-author', 'bv-fact'];
const INLINE_TAGS = ['code', 'strong', 'em', 'b', 'i', 'span', 'kbd', 'sub', 'sup'];
/** Entity-encoded markup: the validator decodes it to text, which must stay text. */
const ENCODED = [
  '&lt;script&gt;alert(1)&lt;/script&gt;',
  '&#x1b;]0;PWNED&#x7;',
  '&#x3C;img src=x onerror=alert(1)&#x3E;',
  '&#60;!-- x --&#62;',
  '&amp;lt;b&amp;gt;',
  '&quot;&apos;',
  '&nbsp;&#8238;',
  '&lt;!--',
  'javascript:alert(1)',
  '[x](javascript:alert(1))',
];
const quote = (value: string) => `"${value.replace(/"/g, '&quot;')}"`;

/** Content shaped like a real topic (so most of it is accepted), with hostile values where the validator lets text in. */
function topicArbitrary(hostile: boolean): fc.Arbitrary<string> {
  const text = fc.oneof(
    { weight: 12, arbitrary: fc.string({ maxLength: 20 }) },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 10 }) },
    { weight: hostile ? 2 : 0, arbitrary: fc.string({ unit: 'binary', maxLength: 6 }) },
    { weight: 4, arbitrary: fc.constantFrom(...ENCODED) },
    { weight: hostile ? 3 : 0, arbitrary: fc.constantFrom(...HOSTILE_FRAGMENTS) },
  );
  const attrValue = fc.oneof(text, fc.constantFrom(...HOSTILE_URLS));
  const link = fc.tuple(fc.constantFrom('a href', 'img src', 'a title', 'img alt'), attrValue, text).map(([tagAttr, url, label]) => {
    const [tag, attr] = tagAttr.split(' ') as [string, string];
    return tag === 'img' ? `<img ${attr}=${quote(url)}>` : `<a ${attr}=${quote(url)}>${label}</a>`;
  });
  const inline = fc.oneof(
    { weight: 4, arbitrary: text },
    { weight: 2, arbitrary: link },
    { weight: 2, arbitrary: fc.tuple(fc.constantFrom(...INLINE_TAGS), text).map(([tag, body]) => `<${tag}>${body}</${tag}>`) },
  );
  const inlines = fc.array(inline, { minLength: 1, maxLength: 4 }).map((parts) => parts.join(''));
  const attrNames = hostile
    ? ['id', 'severity', 'title', 'onclick', 'style', 'class', 'href', 'ONLOAD', 'x-data']
    : ['id', 'id', 'subject', 'value', 'category', 'description', 'flags', 'title'];
  const extraAttr = fc.oneof(
    { weight: 3, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...attrNames), attrValue).map(([name, value]) => ` ${name}=${quote(value)}`) },
  );
  const blockBody = fc.oneof(
    inlines.map((b) => `<p>${b}</p>`),
    fc.array(inlines, { minLength: 1, maxLength: 3 }).map((items) => `<ul>${items.map((b) => `<li>${b}</li>`).join('')}</ul>`),
    inlines.map((b) => `<pre><code>${b}</code></pre>`),
    fc.tuple(text, inlines).map(([term, def]) => `<dl><dt>${term}</dt><dd>${def}</dd></dl>`),
    fc.tuple(text, text).map(([a, b]) => `<table><tr><th>${a}</th></tr><tr><td>${b}</td></tr></table>`),
  );
  const block = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.tuple(fc.constantFrom(...BV_INLINE), extraAttr, inlines).map(([tag, attr, body]) => `<${tag}${attr}>${body}</${tag}>`),
    },
    {
      weight: 4,
      arbitrary: fc
        .tuple(fc.constantFrom(...BV_BLOCKS), extraAttr, fc.array(blockBody, { minLength: 1, maxLength: 3 }))
        .map(([tag, attr, body]) => `<${tag}${attr}>${body.join('')}</${tag}>`),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('bv-diagram', 'bv-pattern'),
          extraAttr,
          text.filter((t) => t.trim() !== ''),
        )
        .map(([tag, attr, body]) => `<${tag}${attr}>${body}</${tag}>`),
    },
    { weight: hostile ? 2 : 0, arbitrary: fc.constantFrom(...HOSTILE_FRAGMENTS) },
    { weight: hostile ? 1 : 0, arbitrary: text },
  );
  const topicPath = hostile
    ? fc.oneof(
        { weight: 4, arbitrary: fc.constantFrom('security/auth', 'a/b', 'team/x_1', 'deep/er/still/topic') },
        {
          weight: 1,
          arbitrary: fc.constantFrom('../../etc/passwd', '/abs/path', 'a\\b', 'a/./b', 'a//b', 'a/b.html', '.git/config', 'a/\u202eb'),
        },
        { weight: 1, arbitrary: fc.string({ maxLength: 12 }) },
      )
    : fc.constantFrom('security/auth', 'a/b', 'team/x_1', 'deep/er/still/topic');
  const topicAttrNames = hostile
    ? ['summary', 'tags', 'keywords', 'related', 'onload', 'style', 'importance', 'data-x']
    : ['summary', 'tags', 'keywords', 'related'];
  const topicAttrs = fc
    .uniqueArray(fc.tuple(fc.constantFrom(...topicAttrNames), attrValue), { maxLength: 3, selector: ([name]) => name })
    .map((pairs) => pairs.map(([name, value]) => ` ${name}=${quote(value)}`).join(''));
  const mutation = hostile
    ? fc.oneof(
        { weight: 3, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.tuple(fc.nat(), fc.constantFrom(...HOSTILE_FRAGMENTS)) },
      )
    : fc.constant(null);
  return fc
    .tuple(
      topicPath,
      attrValue.filter((t) => t.trim() !== ''),
      topicAttrs,
      fc.array(block, { maxLength: 6 }),
      mutation,
    )
    .map(([p, title, attrs, blocks, mutate]) => {
      const html = `<bv-topic path=${quote(p)} title=${quote(title)}${attrs}>${blocks.join('')}</bv-topic>`;
      if (!mutate) return html;
      const [at, insert] = mutate;
      const i = at % (html.length + 1);
      return html.slice(0, i) + insert + html.slice(i);
    });
}

/** Topic documents: three in four shaped like real topics with hostile values, one in four outright hostile. */
export const hostileTopic: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: topicArbitrary(false) },
  { weight: 1, arbitrary: topicArbitrary(true) },
);

export interface FuzzStats {
  cases: number;
  accepted: number;
  rejected: number;
  unsafeStored: number;
  ms: number;
  /** Canonical forms of accepted topics, up to `keepAccepted`, for a round trip through the real writer. */
  samples: string[];
}

/**
 * Runs `numRuns` generated topics through the validator with a fixed seed; throws (fast-check's
 * report, with the shrunk counterexample) when an accepted topic's stored form is unsafe.
 */
export function fuzzTopics(options: { numRuns: number; seed: number; keepAccepted?: number }): FuzzStats {
  const stats: FuzzStats = { cases: 0, accepted: 0, rejected: 0, unsafeStored: 0, ms: 0, samples: [] };
  const start = performance.now();
  fc.assert(
    fc.property(hostileTopic, (html) => {
      stats.cases++;
      const validation = validateTopicHtml(html);
      if (!validation.ok) {
        stats.rejected++;
        return true;
      }
      stats.accepted++;
      const stored = validation.topic.canonicalHtml;
      const problems = unsafeParts(stored);
      if (problems.length > 0) {
        stats.unsafeStored++;
        throw new Error(`accepted and stored unsafe: ${problems.join('; ')}\nstored: ${stored}`);
      }
      if (stats.samples.length < (options.keepAccepted ?? 0)) stats.samples.push(html);
      return true;
    }),
    { numRuns: options.numRuns, seed: options.seed },
  );
  stats.ms = Math.round(performance.now() - start);
  return stats;
}

/**
 * Stores accepted topics through the real writer (`writeTopic`: validation, blob, commit) in a fresh
 * repository and returns the problems found in the blobs read back from git. Empty when all is well.
 */
export async function storeAndCheck(repoDir: string, topics: readonly string[]): Promise<string[]> {
  const { GitRepository } = await import('../../../src/git/repository.js');
  const { ContextStore } = await import('../../../src/store/context-store.js');
  const { writeTopic } = await import('../../../src/curate/write-topic.js');
  const { execa } = await import('execa');
  const repo = await GitRepository.open(repoDir, testProcesses());
  const problems: string[] = [];
  try {
    const store = new ContextStore(repo, async () => ({ enabled: true, gate: false }));
    for (const html of topics) {
      const written = await writeTopic(store, html, undefined, { branch: 'main', overwrite: true });
      if (!written.ok) {
        problems.push(`the writer refused what the validator accepted: ${written.errors.map((e) => e.kind).join(', ')}: ${html}`);
        continue;
      }
      const stored = (
        await execa('git', ['cat-file', 'blob', `refs/brv/heads/main:${written.filePath}`], { cwd: repoDir, stripFinalNewline: false })
      ).stdout;
      for (const problem of unsafeParts(stored)) problems.push(`${problem}\nstored: ${stored}`);
    }
  } finally {
    repo.close();
  }
  return problems;
}
