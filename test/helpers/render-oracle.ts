/**
 * The renderer oracle (issue 31): markdown that brv writes is rendered by the renderers agents and
 * viewers actually use, and every resulting HTML document is parsed by a real HTML parser and searched
 * for anything live. Markdown is inert only if it is inert in all of them:
 *
 * - markdown-it (`html: true`), micromark (`allowDangerousHtml`, `allowDangerousProtocol`; CommonMark,
 *   and, when asked, again with GFM tables), marked (defaults: GFM), showdown (defaults);
 * - Python-Markdown (Debian's `/usr/bin/python3`, `python3-markdown`), with its defaults and with
 *   `extensions=['fenced_code', 'tables']`. All documents of one call go through ONE Python process
 *   (JSON in, JSON out). When it is missing, that renderer alone is skipped with a note on stderr —
 *   except under `CI`, where a missing renderer is a failure.
 *
 * The HTML is parsed with rehype-parse (parse5) and every element, attribute and URL is checked: the
 * dangerous elements, any `on*` attribute, any `javascript:`/`vbscript:`/`data:` URL (entities decoded
 * by the parser, whitespace and control characters removed, any case) in the URL-carrying attributes
 * and in `url(…)` of a style, any element or comment no Markdown construct produces (raw HTML that got
 * through), and control characters in the markdown or the HTML.
 */
import { spawnSync } from 'node:child_process';
import type { Element, Nodes, Root } from 'hast';
import MarkdownIt from 'markdown-it';
import { Marked } from 'marked';
import { micromark } from 'micromark';
import { gfmTable, gfmTableHtml } from 'micromark-extension-gfm-table';
import { find, html as htmlSchema, svg as svgSchema } from 'property-information';
import rehypeParse from 'rehype-parse';
import showdown from 'showdown';
import { unified } from 'unified';

export const RENDERERS = [
  'markdown-it',
  'micromark',
  'micromark+gfm-table',
  'marked',
  'showdown',
  'python-markdown',
  'python-markdown+ext',
] as const;
export type RendererName = (typeof RENDERERS)[number];
/** The renderers run unless asked otherwise: all but micromark with GFM tables (micromark is the slowest; the bench runs it). */
export const DEFAULT_RENDERERS: readonly RendererName[] = RENDERERS.filter((name) => name !== 'micromark+gfm-table');

/** What one renderer made of one document that is not inert. */
export interface Finding {
  renderer: RendererName | 'markdown';
  /** element: a dangerous element; handler: an on* attribute; url: a dangerous URL; raw-html: an element or comment Markdown does not produce; control: a control character; error: the renderer failed. */
  kind: 'element' | 'handler' | 'url' | 'raw-html' | 'control' | 'error';
  detail: string;
}

export interface OracleOptions {
  /** false: any <img> is a finding too (the input had none, so one can only come from a payload). */
  images?: boolean;
  /** Which renderers (default DEFAULT_RENDERERS); Python-Markdown's are skipped where it is not installed. */
  renderers?: readonly RendererName[];
}

/** Elements that are live (or load, submit or restyle) whatever their attributes. */
export const DANGEROUS_ELEMENTS: ReadonlySet<string> = new Set([
  'applet',
  'base',
  'button',
  'embed',
  'form',
  'frame',
  'frameset',
  'iframe',
  'input',
  'link',
  'math',
  'meta',
  'noscript',
  'object',
  'option',
  'portal',
  'script',
  'select',
  'style',
  'svg',
  'template',
  'textarea',
]);

/** Elements some Markdown construct of the renderers above produces: anything else is raw HTML that got through. */
const MARKDOWN_ELEMENTS: ReadonlySet<string> = new Set([
  'a',
  'blockquote',
  'br',
  'code',
  'del',
  'em',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'hr',
  'img',
  'li',
  'ol',
  'p',
  'pre',
  's',
  'strong',
  'table',
  'tbody',
  'td',
  'th',
  'thead',
  'tr',
  'ul',
]);

/** Attributes whose value a browser loads or navigates to. */
const URL_ATTRIBUTES: ReadonlySet<string> = new Set([
  'href',
  'src',
  'action',
  'formaction',
  'srcset',
  'poster',
  'xlink:href',
  'data',
  'background',
  'lowsrc',
  'dynsrc',
  'ping',
  'codebase',
]);

const DANGEROUS_SCHEME = /^(?:javascript|vbscript|data):/;
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;
// eslint-disable-next-line no-control-regex
const WHITESPACE_AND_CONTROLS = /[\s\u0000-\u001f\u007f-\u009f]/g;

const PYTHON = '/usr/bin/python3';
const PYTHON_SCRIPT = String.raw`
import json, sys
import markdown
docs = json.load(sys.stdin)
plain = markdown.Markdown()
ext = markdown.Markdown(extensions=['fenced_code', 'tables'])
out = []
for doc in docs:
    pair = []
    for md in (plain, ext):
        try:
            md.reset()
            pair.append({'html': md.convert(doc)})
        except Exception as error:
            pair.append({'error': '%s: %s' % (type(error).__name__, error)})
    out.append(pair)
json.dump(out, sys.stdout)
`;

const markdownIt = new MarkdownIt({ html: true });
const marked = new Marked();
const showdownConverter = new showdown.Converter();
const htmlParser = unified().use(rehypeParse, { fragment: true });

let pythonState: { available: boolean; note?: string } | undefined;

/** Whether Python-Markdown can run here; the note says why not (printed once). Throws under CI when it cannot. */
function pythonMarkdownAvailable(): boolean {
  if (!pythonState) {
    const probe = spawnSync(PYTHON, ['-c', 'import markdown'], { encoding: 'utf8' });
    if (probe.status === 0) pythonState = { available: true };
    else {
      const why = probe.error ? probe.error.message : probe.stderr.trim().split('\n').pop();
      const note = `render oracle: Python-Markdown skipped (${PYTHON} -c "import markdown" failed: ${why}); install python3-markdown`;
      if (process.env.CI) throw new Error(`${note}. Under CI every renderer must run.`);
      process.stderr.write(`NOTE ${note}\n`);
      pythonState = { available: false, note };
    }
  }
  return pythonState.available;
}

/** The renderers that run here (Python-Markdown only when it is installed). */
export function activeRenderers(renderers: readonly RendererName[] = DEFAULT_RENDERERS): RendererName[] {
  return renderers.filter((name) => !name.startsWith('python-markdown') || pythonMarkdownAvailable());
}

type Rendered = { html: string } | { error: string };

function renderPython(markdowns: readonly string[]): Array<[Rendered, Rendered]> {
  if (markdowns.length === 0 || !pythonMarkdownAvailable()) return [];
  const run = spawnSync(PYTHON, ['-c', PYTHON_SCRIPT], {
    input: JSON.stringify(markdowns),
    encoding: 'utf8',
    maxBuffer: 1 << 30,
    timeout: 600_000,
    env: { PATH: '/usr/bin:/bin', LANG: 'C.UTF-8', PYTHONIOENCODING: 'utf-8' },
  });
  if (run.status !== 0)
    throw new Error(`render oracle: Python-Markdown failed (${run.error?.message ?? `exit ${run.status}`}): ${run.stderr}`);
  return JSON.parse(run.stdout) as Array<[Rendered, Rendered]>;
}

function renderJs(renderer: RendererName, markdown: string): Rendered {
  try {
    switch (renderer) {
      case 'markdown-it':
        return { html: markdownIt.render(markdown) };
      case 'micromark':
        return { html: micromark(markdown, { allowDangerousHtml: true, allowDangerousProtocol: true }) };
      case 'micromark+gfm-table':
        return {
          html: micromark(markdown, {
            allowDangerousHtml: true,
            allowDangerousProtocol: true,
            extensions: [gfmTable()],
            htmlExtensions: [gfmTableHtml()],
          }),
        };
      case 'marked':
        return { html: marked.parse(markdown, { async: false }) };
      case 'showdown':
        return { html: showdownConverter.makeHtml(markdown) };
      default:
        throw new Error(`not a JavaScript renderer: ${renderer}`);
    }
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function attributeName(element: Element, property: string): string {
  const schema = element.tagName === 'svg' || element.tagName === 'math' ? svgSchema : htmlSchema;
  return find(schema, property).attribute.toLowerCase();
}

function attributeValue(value: unknown, name: string): string[] {
  if (Array.isArray(value)) return name === 'srcset' ? value.map(String) : [value.map(String).join(' ')];
  return [String(value)];
}

function isDangerousUrl(value: string): boolean {
  return DANGEROUS_SCHEME.test(value.replace(WHITESPACE_AND_CONTROLS, '').toLowerCase());
}

function isDangerousStyle(value: string): boolean {
  const css = value.replace(WHITESPACE_AND_CONTROLS, '').replace(/\\/g, '').replace(/["']/g, '').toLowerCase();
  return /url\((?:javascript|vbscript|data):/.test(css) || css.includes('expression(') || css.includes('-moz-binding');
}

function describe(element: Element): string {
  const attributes = Object.entries(element.properties ?? {})
    .map(([key, value]) => `${attributeName(element, key)}="${attributeValue(value, key).join(',')}"`)
    .join(' ');
  return `<${element.tagName}${attributes ? ` ${attributes}` : ''}>`.slice(0, 200);
}

/** A marked GFM task-list checkbox: the one <input> Markdown makes, disabled and harmless. */
function isTaskCheckbox(renderer: string, element: Element): boolean {
  if (renderer !== 'marked' || element.tagName !== 'input') return false;
  const { type, disabled, checked, ...rest } = element.properties ?? {};
  return type === 'checkbox' && disabled === true && (checked === undefined || checked === true) && Object.keys(rest).length === 0;
}

/** Everything live in one renderer's HTML (parsed with a real HTML parser). */
function htmlFindings(renderer: RendererName, html: string, options: OracleOptions = {}): Finding[] {
  const findings: Finding[] = [];
  const add = (kind: Finding['kind'], detail: string) => findings.push({ renderer, kind, detail });
  if (CONTROL.test(html)) add('control', 'control character in the HTML');
  const tree = htmlParser.parse(html) as Root;
  const stack: Nodes[] = [tree];
  for (let node = stack.pop(); node !== undefined; node = stack.pop()) {
    if (node.type === 'comment') {
      if (node.value !== '') add('raw-html', `comment <!--${node.value.slice(0, 80)}-->`);
      continue;
    }
    if (node.type === 'root') {
      for (const child of node.children) stack.push(child);
      continue;
    }
    if (node.type !== 'element') continue;
    const tag = node.tagName.toLowerCase();
    const taskCheckbox = isTaskCheckbox(renderer, node);
    if (DANGEROUS_ELEMENTS.has(tag) && !taskCheckbox) add('element', `<${tag}> element: ${describe(node)}`);
    else if (!MARKDOWN_ELEMENTS.has(tag) && !taskCheckbox) add('raw-html', `<${tag}> element: ${describe(node)}`);
    if (tag === 'img' && options.images === false) add('element', `<img> from the payload: ${describe(node)}`);
    for (const [property, value] of Object.entries(node.properties ?? {})) {
      if (value === undefined || value === null || value === false) continue;
      const name = attributeName(node, property);
      if (name.startsWith('on')) add('handler', `event handler ${name} on <${tag}>: ${describe(node)}`);
      if (URL_ATTRIBUTES.has(name) && attributeValue(value, name).some(isDangerousUrl))
        add('url', `dangerous URL in ${name} of <${tag}>: ${describe(node)}`);
      if (name === 'style' && isDangerousStyle(String(value))) add('url', `dangerous URL in style of <${tag}>: ${describe(node)}`);
    }
    for (const child of node.children) stack.push(child);
    // <template> keeps its children in a document fragment of its own.
    const content = (node as Element & { content?: Root }).content;
    if (content) stack.push(content);
  }
  return findings;
}

/**
 * Renders every markdown document with every renderer and returns, per document, what is not inert
 * (empty when harmless). One Python process for the whole call: batch documents for speed.
 */
function renderEach(markdowns: readonly string[], renderers: readonly RendererName[]): Array<Array<[RendererName, Rendered]>> {
  const python = renderers.some((name) => name.startsWith('python-markdown')) ? renderPython(markdowns) : [];
  const js = renderers.filter((name) => !name.startsWith('python-markdown'));
  return markdowns.map((markdown, index) => {
    const outputs: Array<[RendererName, Rendered]> = js.map((name) => [name, renderJs(name, markdown)]);
    const pair = python[index];
    if (pair) {
      if (renderers.includes('python-markdown')) outputs.push(['python-markdown', pair[0]]);
      if (renderers.includes('python-markdown+ext')) outputs.push(['python-markdown+ext', pair[1]]);
    }
    return outputs;
  });
}

/**
 * Every document's HTML in every renderer (those available), for tests of what a reader sees: the
 * structure (lists, code, tables), not only inertness. A renderer that fails is an error.
 */
export function renderHtml(
  markdowns: readonly string[],
  renderers: readonly RendererName[] = RENDERERS,
): Array<Array<[RendererName, string]>> {
  return renderEach(markdowns, activeRenderers(renderers)).map((outputs) =>
    outputs.map(([name, rendered]) => {
      if ('error' in rendered) throw new Error(`${name} failed: ${rendered.error}`);
      return [name, rendered.html];
    }),
  );
}

export function renderOracle(markdowns: readonly string[], options: OracleOptions = {}): Finding[][] {
  const outputs = renderEach(markdowns, activeRenderers(options.renderers));
  return markdowns.map((markdown, index) => {
    const findings: Finding[] = [];
    const control = CONTROL.exec(markdown);
    if (control)
      findings.push({
        renderer: 'markdown',
        kind: 'control',
        detail: `control character U+${control[0].charCodeAt(0).toString(16).padStart(4, '0')} in the markdown`,
      });
    for (const [renderer, rendered] of outputs[index]!) {
      if ('error' in rendered) findings.push({ renderer, kind: 'error', detail: `renderer failed: ${rendered.error}` });
      else findings.push(...htmlFindings(renderer, rendered.html, options));
    }
    return findings;
  });
}

/** A finding as one line: "renderer: detail". */
export function formatFinding(finding: Finding): string {
  return `${finding.renderer}: ${finding.detail}`;
}
