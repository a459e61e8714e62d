/**
 * Issue 31's in-process render campaign: each hostile topic through every way brv turns topic HTML
 * into markdown — validated (`validateTopicHtml`, then `renderTopicMarkdown` of the tree, then the
 * stored canonical form through the fast extractor and through the full stored-blob path), and as a
 * planted blob nobody validated (the fast extractor and `readStoredTopic` + render) — and every
 * markdown through the renderer oracle. Shared by test/attack/render-oracle.test.ts and
 * bench/attack/render-oracle.ts.
 */
import { fullBlobDocument } from '../../../src/index/document.js';
import { fastBlobDocument } from '../../../src/index/fast-extract.js';
import { renderTopicMarkdown } from '../../../src/topic/render.js';
import { validateTopicHtml } from '../../../src/topic/validate.js';
import { activeRenderers, formatFinding, renderOracle, type Finding, type OracleOptions } from '../../helpers/render-oracle.js';

export type RenderPath = 'validated+render' | 'validated+fast' | 'validated+stored' | 'planted+fast' | 'planted+stored';

export interface PathFinding extends Finding {
  vector: string;
  path: RenderPath;
}

export interface RenderCampaign {
  vectors: number;
  accepted: number;
  refused: number;
  /** Markdown documents rendered (after removing duplicates). */
  documents: number;
  /** How many validated topics the fast extractor answered (the rest it left to the full path). */
  fastAnswered: number;
  plantedFastAnswered: number;
  findings: PathFinding[];
  /** Per renderer: how many vectors render anything live (in any path). */
  liveByRenderer: Record<string, number>;
  /** Per renderer: how many vectors render a dangerous element, an event handler or a dangerous URL (raw HTML and control characters aside). */
  dangerousByRenderer: Record<string, number>;
  /** How many vectors render anything live in at least one renderer. */
  liveVectors: number;
  renderers: string[];
  ms: { paths: number; oracle: number };
}

/** Markdown of one topic through every path, labelled. */
function markdownPaths(html: string): { accepted: boolean; fast: boolean; plantedFast: boolean; paths: Array<[RenderPath, string]> } {
  const paths: Array<[RenderPath, string]> = [];
  const result = validateTopicHtml(html);
  let fast = false;
  if (result.ok) {
    paths.push(['validated+render', renderTopicMarkdown(result.topic.root)]);
    const quick = fastBlobDocument(result.topic.canonicalHtml);
    if (quick && 'markdown' in quick) {
      fast = true;
      paths.push(['validated+fast', quick.markdown]);
    }
    const stored = fullBlobDocument(result.topic.canonicalHtml);
    if ('markdown' in stored) paths.push(['validated+stored', stored.markdown]);
  }
  const planted = fastBlobDocument(html);
  const plantedFast = planted !== undefined && 'markdown' in planted;
  if (plantedFast) paths.push(['planted+fast', planted.markdown]);
  const stored = fullBlobDocument(html);
  if ('markdown' in stored) paths.push(['planted+stored', stored.markdown]);
  return { accepted: result.ok, fast, plantedFast, paths };
}

/**
 * Runs the campaign over `vectors` (id and topic HTML). Identical markdown is rendered once. The
 * oracle runs in batches of `batch` documents (one Python process each).
 */
export function renderCampaign(
  vectors: ReadonlyArray<{ id: string; html: string }>,
  options: OracleOptions & { batch?: number } = {},
): RenderCampaign {
  const started = performance.now();
  const documents = new Map<string, Array<{ vector: string; path: RenderPath }>>();
  let accepted = 0;
  let fastAnswered = 0;
  let plantedFastAnswered = 0;
  for (const { id, html } of vectors) {
    const paths = markdownPaths(html);
    if (paths.accepted) accepted++;
    if (paths.fast) fastAnswered++;
    if (paths.plantedFast) plantedFastAnswered++;
    for (const [path, markdown] of paths.paths) {
      let users = documents.get(markdown);
      if (!users) documents.set(markdown, (users = []));
      users.push({ vector: id, path });
    }
  }
  const pathsMs = performance.now() - started;
  const markdowns = [...documents.keys()];
  const findings: PathFinding[] = [];
  const batch = options.batch ?? 5000;
  for (let at = 0; at < markdowns.length; at += batch) {
    const slice = markdowns.slice(at, at + batch);
    renderOracle(slice, options).forEach((found, index) => {
      for (const finding of found) for (const user of documents.get(slice[index]!)!) findings.push({ ...finding, ...user });
    });
  }
  const renderers = activeRenderers(options.renderers);
  const liveByRenderer: Record<string, number> = Object.fromEntries(['markdown', ...renderers].map((r) => [r, 0]));
  const live = new Map<string, Set<string>>();
  for (const finding of findings) {
    let set = live.get(finding.renderer);
    if (!set) live.set(finding.renderer, (set = new Set()));
    set.add(finding.vector);
  }
  for (const [renderer, set] of live) liveByRenderer[renderer] = set.size;
  const dangerous = new Map<string, Set<string>>();
  for (const finding of findings.filter((f) => f.kind === 'element' || f.kind === 'handler' || f.kind === 'url')) {
    let set = dangerous.get(finding.renderer);
    if (!set) dangerous.set(finding.renderer, (set = new Set()));
    set.add(finding.vector);
  }
  const dangerousByRenderer: Record<string, number> = Object.fromEntries(renderers.map((r) => [r, dangerous.get(r)?.size ?? 0]));
  return {
    vectors: vectors.length,
    accepted,
    refused: vectors.length - accepted,
    documents: markdowns.length,
    fastAnswered,
    plantedFastAnswered,
    findings,
    liveByRenderer,
    dangerousByRenderer,
    liveVectors: new Set(findings.map((f) => f.vector)).size,
    renderers,
    ms: { paths: Math.round(pathsMs), oracle: Math.round(performance.now() - started - pathsMs) },
  };
}

/** One line per finding: vector, path, renderer and what was found. */
export function describeFinding(finding: PathFinding): string {
  return `${finding.vector} [${finding.path}] ${formatFinding(finding)}`;
}
