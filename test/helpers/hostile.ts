import { DANGEROUS_ELEMENTS, formatFinding, renderOracle, type OracleOptions } from './render-oracle.js';

/**
 * Hostile strings an attacker can put in any attribute value (or text) of a topic. Written into
 * HTML through `attribute()`, so control characters arrive entity-encoded, as a push would carry them.
 */
export const PAYLOADS: readonly string[] = [
  '<img src=x onerror=alert(1)>',
  '[x](javascript:alert(1))',
  '[click](javascript:alert(1) "t")',
  '![x](data:text/html,<script>alert(1)</script>)',
  '\n# injected\n<script>alert(1)</script>',
  'a\n\n<iframe src="javascript:alert(1)"></iframe>\n\nb',
  '\x1b]0;PWNED\x07',
  '\x1b[2J\x1b[31mred\x9b1m\r\x08\x00\x7f',
  '<https://x>',
  '<javascript:alert(1)>',
  '<vbscript:msgbox(1)>',
  'javascript:alert(1)',
  '`<img src=x onerror=alert(1)>`',
  '\\<img src=x onerror=alert(1)>',
  '&lt;img src=x onerror=alert(1)&gt;',
  '&#60;img src=x onerror=alert(1)&#62;',
  '[a]: javascript:alert(1)\n\n[a]',
  '[a]\n\n[a]: javascript:alert(1)',
  '- list\n1. item\n> quote\n---\n===',
  '<!-- x --><svg onload=alert(1)>',
  '|a|b|\n|-|-|\n|<img src=x onerror=alert(1)>|x|',
  '```\n<script>alert(1)</script>\n```',
  '~~~\n<script>alert(1)</script>\n~~~',
  '    <script>alert(1)</script>',
  '\u2028<script>alert(1)</script>\u2029',
  '<a href="javascript:alert(1)">x</a>',
  '*a* _b_ **c** ~~d~~ [e] x](javascript:alert(1))',
  ')](javascript:alert(1))',
  '# title #',
  '<scr<script>ipt>alert(1)</script>',
];

/** An attribute value as HTML source: markup escaped, control characters as numeric character references. */
export function attribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/"/g, '&quot;')
    .replace(/</g, '&lt;')
    .replace(/[\u0000-\u001f\u007f-\u009f]/g, (c) => (c === '\n' || c === '\t' ? c : `&#x${c.charCodeAt(0).toString(16)};`));
}

/**
 * Text content as HTML source (same escaping as an attribute value).
 * @alias a name of its own for text positions
 */
export const text = attribute;

/** Every attribute the renderer reads, with the element that carries it. */
export const RENDERED_ATTRIBUTES: ReadonlyArray<{ tag: string; name: string }> = [
  ...['title', 'summary', 'tags', 'keywords', 'related', 'path'].map((name) => ({ tag: 'bv-topic', name })),
  { tag: 'bv-rule', name: 'id' },
  { tag: 'bv-rule', name: 'severity' },
  { tag: 'bv-decision', name: 'id' },
  { tag: 'bv-bug', name: 'id' },
  { tag: 'bv-bug', name: 'severity' },
  { tag: 'bv-fix', name: 'id' },
  { tag: 'bv-fact', name: 'subject' },
  { tag: 'bv-fact', name: 'value' },
  { tag: 'bv-fact', name: 'category' },
  { tag: 'bv-pattern', name: 'description' },
  { tag: 'bv-pattern', name: 'flags' },
  { tag: 'bv-diagram', name: 'title' },
  { tag: 'bv-diagram', name: 'type' },
  { tag: 'abbr', name: 'title' }, // rendered as "CI (title)"
];

/** A topic (never validated) with `value` in one attribute; `path` is replaced only when it is the target. */
export function topicWithAttribute(tag: string, name: string, value: string): string {
  const attr = (t: string, n: string, fallback: string) => (t === tag && n === name ? attribute(value) : fallback);
  return (
    `<bv-topic path="${attr('bv-topic', 'path', 'hostile/topic')}" title="${attr('bv-topic', 'title', 'Hostile')}"` +
    ` summary="${attr('bv-topic', 'summary', 'S')}" tags="${attr('bv-topic', 'tags', 'a,b')}" keywords="${attr('bv-topic', 'keywords', 'k')}"` +
    ` related="${attr('bv-topic', 'related', '@x/y.html')}">\n` +
    `  <bv-rule id="${attr('bv-rule', 'id', 'r-1')}" severity="${attr('bv-rule', 'severity', 'must')}">Rule text.</bv-rule>\n` +
    `  <bv-decision id="${attr('bv-decision', 'id', 'd-1')}"><p>Decision.</p></bv-decision>\n` +
    `  <bv-bug id="${attr('bv-bug', 'id', 'b-1')}" severity="${attr('bv-bug', 'severity', 'high')}">Bug.</bv-bug>\n` +
    `  <bv-fix id="${attr('bv-fix', 'id', 'f-1')}">Fix.</bv-fix>\n` +
    `  <bv-fact subject="${attr('bv-fact', 'subject', 'ttl')}" value="${attr('bv-fact', 'value', '15 minutes')}" category="${attr('bv-fact', 'category', 'project')}">Fact.</bv-fact>\n` +
    `  <bv-pattern description="${attr('bv-pattern', 'description', 'd')}" flags="${attr('bv-pattern', 'flags', 'i')}">^a+$</bv-pattern>\n` +
    `  <bv-diagram title="${attr('bv-diagram', 'title', 'Flow')}" type="${attr('bv-diagram', 'type', 'mermaid')}">graph TD; A--&gt;B</bv-diagram>\n` +
    `  <bv-highlights><details><summary>Why <abbr title="${attr('abbr', 'title', 'Continuous Integration')}">CI</abbr></summary><p>Gate.</p></details></bv-highlights>\n` +
    `</bv-topic>\n`
  );
}

/** A topic (never validated) with `value` in every rendered attribute but the path at once. */
export function topicWithEveryAttribute(path: string, value: string, body = ''): string {
  let html = topicWithAttribute('bv-topic', 'path', path);
  for (const { tag, name } of RENDERED_ATTRIBUTES) {
    if (name === 'path') continue;
    const open = html.indexOf(`<${tag} `);
    const at = html.indexOf(` ${name}="`, open);
    const end = html.indexOf('"', at + name.length + 3);
    html = `${html.slice(0, at)} ${name}="${attribute(value)}${html.slice(end)}`;
  }
  return html.replace('</bv-topic>', `${body}</bv-topic>`);
}

/** Topics with hostile text directly inside lists (and in other text positions). */
export function listTopics(): string[] {
  return PAYLOADS.flatMap((payload) => {
    const p = text(payload);
    return [
      `<bv-topic path="hostile/list" title="L"><bv-structure><ul>${p}<li>a</li>${p}</ul><ol>${p}<li>b</li></ol><dl>${p}<dt>t</dt>${p}<dd>d</dd></dl></bv-structure></bv-topic>`,
      `<bv-topic path="hostile/list" title="L"><bv-changes>${p}<li>a</li>${p}<li>b</li></bv-changes><bv-rule>${p}</bv-rule><bv-reason>${p}<p>${p}</p></bv-reason></bv-topic>`,
      `<bv-topic path="hostile/list" title="L"><bv-structure><details><summary>${p}</summary>${p}</details><figure>${p}<figcaption>${p}</figcaption></figure><div>${p}<section>${p}</section></div><p><abbr title="${attribute(payload)}">${p}</abbr> <q>${p}</q> <time datetime="${attribute(payload)}">${p}</time> <mark>${p}</mark></p></bv-structure></bv-topic>`,
      `<bv-topic path="hostile/list" title="L"><bv-pattern>${p}</bv-pattern><bv-diagram type="ascii">${p}</bv-diagram><bv-unknown>${p}</bv-unknown><bv-examples><pre><code>${p}</code></pre></bv-examples></bv-topic>`,
    ];
  });
}

/** Blobs as a crafted push could carry them: HTML that validation refuses, planted without it. */
export const PLANTED_BLOBS: readonly string[] = [
  '<bv-topic path="p/a" title="A"><bv-reason><a href="javascript:alert(1)">click</a></bv-reason></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-reason><a href="JaVaScRiPt:alert(1)">a</a> <a href="java&#x09;script:alert(1)">b</a> <a href=" javascript:alert(1)">c</a> <a href="&#106;avascript:alert(1)">d</a></bv-reason></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-reason><a href="vbscript:msgbox(1)">a</a> <a href="data:text/html,&lt;script&gt;alert(1)&lt;/script&gt;">b</a></bv-reason></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-structure><img src=x onerror=alert(1)><img src="javascript:alert(1)" alt="j"><img src="data:image/svg+xml,&lt;svg onload=alert(1)&gt;" alt="d"></bv-structure></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-reason>x<script>alert(1)</script><style>*{background:url(javascript:alert(1))}</style></bv-reason></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-structure><iframe src="javascript:alert(1)"></iframe><object data="javascript:alert(1)"></object><embed src="javascript:alert(1)"><svg onload="alert(1)"><script>alert(1)</script></svg></bv-structure></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-structure><math><mi xlink:href="javascript:alert(1)">x</mi></math><form action="javascript:alert(1)"><button formaction="javascript:alert(1)">b</button><input onfocus=alert(1) autofocus></form></bv-structure></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-reason>a<!--><img src=x onerror=alert(1)>--><!-- <script>alert(1)</script> --></bv-reason></bv-topic>',
  '<bv-topic path="p/a" title="A" onload="alert(1)" style="x"><bv-reason onclick="alert(1)"><p onmouseover="alert(1)">x</p></bv-reason></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-unknown>&lt;img src=x onerror=alert(1)&gt;<img src=x onerror=alert(1)></bv-unknown></bv-topic>',
  '<bv-topic path="p/a" title="\x1b]0;PWNED\x07"><bv-reason>a\x1b]0;PWNED\x07b &#x1b;[2J &#x7; &#x9b; \x9b31m \x00 \x08</bv-reason><bv-fact subject="&#x1b;[31m" value="\x07">x</bv-fact></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-examples><pre><code class="language-x&quot; onmouseover=&quot;alert(1)">```\n<script>alert(1)</script></code></pre></bv-examples></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-pattern>a\n<script>alert(1)</script>\n\n# b</bv-pattern><bv-diagram type="x\n<script>">&lt;/code&gt;&lt;/pre&gt;&lt;script&gt;alert(1)&lt;/script&gt;\n```\n<img src=x onerror=alert(1)></bv-diagram></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-structure><ul>note &lt;img src=x onerror=alert(1)&gt;<li>a</li></ul><dl>&lt;script&gt;alert(1)&lt;/script&gt;<dt>t</dt></dl></bv-structure></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-reason><a href="https://ok.example/">fine</a> <img src="https://ok.example/i.png" alt="ok"></bv-reason><bv-reason><base href="javascript:alert(1)//"><a href="rel">r</a><meta http-equiv="refresh" content="0;url=javascript:alert(1)"><link rel="import" href="javascript:alert(1)"></bv-reason></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-structure><table><tr><td><a href="javascript:alert(1)">x</a></td><td>&lt;img src=x onerror=alert(1)&gt;</td></tr></table><blockquote>&lt;script&gt;<a href="javascript:alert(1)">q</a></blockquote></bv-structure></bv-topic>',
  // The inert vocabulary of issue 11 carrying what must never pass: planted, so only the reader's sanitizer stands between.
  '<bv-topic path="p/a" title="A"><bv-structure><details open ontoggle="alert(1)"><summary onclick="alert(1)">s<svg onload=alert(1)></svg></summary><iframe srcdoc="&lt;script&gt;alert(1)&lt;/script&gt;"></iframe></details></bv-structure></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-structure><q cite="javascript:alert(1)">q</q><del cite="javascript:alert(1)">d</del><blockquote cite="vbscript:x">b</blockquote><time datetime="x" onmouseover="alert(1)">t</time><mark style="x">m</mark></bv-structure></bv-topic>',
  '<bv-topic path="p/a" title="A" data-x="&lt;script&gt;alert(1)&lt;/script&gt;"><bv-structure><div data-y="javascript:alert(1)" class="&quot;&gt;&lt;img src=x onerror=alert(1)&gt;"><abbr title="&lt;img src=x onerror=alert(1)&gt;">A</abbr><figure><img src="data:text/html,x" alt="f"><figcaption><a href="javascript:alert(1)">c</a></figcaption></figure></div></bv-structure></bv-topic>',
  '<bv-topic path="p/a" title="A"><bv-structure><section><math><mtext><table><mglyph><style><!--</style><img title="--&gt;&lt;img src=1 onerror=alert(1)&gt;"></mglyph></table></mtext></math></section><div><noscript><p title="</noscript><img src=x onerror=alert(1)>"></noscript></div></bv-structure></bv-topic>',
];

/** Tags that must never be stored or rendered, whatever else the validator allows (shared by the render checks and the fuzz campaign). */
export const FORBIDDEN_TAGS: ReadonlySet<string> = DANGEROUS_ELEMENTS;

/**
 * Problems with rendered markdown once the renderer oracle (test/helpers/render-oracle.ts: markdown-it,
 * micromark, marked, showdown and Python-Markdown, each HTML output parsed by a real HTML parser) has
 * rendered it, one line each ("renderer: what"). Empty when harmless. `images: false` also refuses any
 * <img> (the input had none). Each call starts one Python process: check many documents with
 * `renderFailures`.
 */
export function renderProblems(markdown: string, options: OracleOptions = {}): string[] {
  return renderProblemsEach([markdown], options)[0]!;
}

/** renderProblems for many documents at once (one Python process for all), in order. */
function renderProblemsEach(markdowns: readonly string[], options: OracleOptions = {}): string[][] {
  return renderOracle(markdowns, options).map((findings) => findings.map(formatFinding));
}

/**
 * renderProblemsEach over labelled documents: one line per problem, "problem" then the label on the
 * next line (what was rendered, from what). Empty when every document is harmless.
 */
export function renderFailures(cases: ReadonlyArray<readonly [label: string, markdown: string]>, options: OracleOptions = {}): string[] {
  const problems = renderProblemsEach(
    cases.map(([, markdown]) => markdown),
    options,
  );
  return cases.flatMap(([label], index) => problems[index]!.map((problem) => `${problem}\n${label}`));
}
