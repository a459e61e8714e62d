/**
 * The coding-project corpus of bench/coding.ts (fixtures/coding-corpus/, see its README): topics
 * under `topics/<project>/<domain>/…/<topic>.html` (one brv repository per project; the topic path
 * is the file path below the project folder, without `.html`) and judged questions in
 * `questions.jsonl`, one JSON object a line:
 *
 *   {"id": "pay-001", "project": "ledgerly", "category": "lookup", "question": "…",
 *    "relevant": {"auth/access-tokens": 2, "auth/sessions": 1}}
 *
 * Split (issue 12's validation discipline), stratified by project and category: within each
 * (project, category) group, questions in file order, 0-based; tune = even-indexed, validate =
 * odd-indexed (`splitConversations` of bench/lib/locomo-ablate.ts, the same parity rule per group).
 *
 * Other corpora of the same form (fixtures/docs-corpus/) name themselves and their categories in a
 * `corpus.json` beside `questions.jsonl`: `{"name": "docs", "categories": ["passage", "advice"]}`;
 * without one, a corpus is the coding corpus (name `coding`, CODING_CATEGORIES). Their questions may
 * carry further fields (docs: `passage`), which are ignored.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Judgments } from './graded-metrics.js';
import { splitConversations, type Split } from './locomo-ablate.js';

export const CODING_CATEGORIES: readonly string[] = ['lookup', 'why', 'how-to', 'debug', 'multi', 'recommend'];

export const DEFAULT_CORPUS = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../fixtures/coding-corpus');

export interface CodingQuestion {
  readonly id: string;
  readonly project: string;
  readonly category: string;
  readonly question: string;
  readonly relevant: Judgments;
}

export interface CodingProject {
  readonly name: string;
  /** The folder imported as this project's context tree (absolute). */
  readonly directory: string;
  /** Topic paths (relative to `directory`, without `.html`), sorted. */
  readonly topics: readonly string[];
}

export interface CodingCorpus {
  /** Results files are named after it (`coding-validate.json`, `docs-validate.json`). */
  readonly name: string;
  readonly categories: readonly string[];
  readonly projects: readonly CodingProject[];
  readonly questions: readonly CodingQuestion[];
}

async function topicPaths(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { withFileTypes: true, recursive: true });
  return entries
    .filter((e) => e.isFile() && e.name.endsWith('.html'))
    .map((e) =>
      path
        .relative(directory, path.join(e.parentPath, e.name))
        .split(path.sep)
        .join('/')
        .replace(/\.html$/, ''),
    )
    .sort();
}

/** Parses questions.jsonl; throws on a malformed line, a duplicate id or a category not in `categories`. */
export function parseQuestions(text: string, categories: readonly string[] = CODING_CATEGORIES): CodingQuestion[] {
  const questions: CodingQuestion[] = [];
  const ids = new Set<string>();
  text.split('\n').forEach((line, i) => {
    if (line.trim() === '') return;
    const where = `questions.jsonl line ${i + 1}`;
    const q = JSON.parse(line) as Partial<CodingQuestion>;
    if (typeof q.id !== 'string' || typeof q.project !== 'string' || typeof q.question !== 'string')
      throw new Error(`${where}: id, project and question are required strings`);
    if (typeof q.category !== 'string' || !categories.includes(q.category))
      throw new Error(`${where}: unknown category ${String(q.category)}`);
    if (ids.has(q.id)) throw new Error(`${where}: duplicate id ${q.id}`);
    ids.add(q.id);
    const relevant = q.relevant ?? {};
    const grades = Object.values(relevant);
    if (!grades.includes(2) || grades.some((g) => g !== 1 && g !== 2))
      throw new Error(`${where}: relevant needs at least one grade-2 topic, grades 1 or 2 only`);
    questions.push({ id: q.id, project: q.project, category: q.category, question: q.question, relevant });
  });
  return questions;
}

export async function loadCodingCorpus(root: string = DEFAULT_CORPUS): Promise<CodingCorpus> {
  const topicsRoot = path.join(root, 'topics');
  const names = (await readdir(topicsRoot, { withFileTypes: true }))
    .filter((e) => e.isDirectory())
    .map((e) => e.name)
    .sort();
  const projects = await Promise.all(
    names.map(async (name) => ({ name, directory: path.join(topicsRoot, name), topics: await topicPaths(path.join(topicsRoot, name)) })),
  );
  const own = await readFile(path.join(root, 'corpus.json'), 'utf8').then(
    (text) => JSON.parse(text) as { name?: unknown; categories?: unknown },
    () => undefined,
  );
  const name = typeof own?.name === 'string' ? own.name : 'coding';
  const categories =
    Array.isArray(own?.categories) && own.categories.every((c) => typeof c === 'string') ? (own.categories as string[]) : CODING_CATEGORIES;
  const questions = parseQuestions(await readFile(path.join(root, 'questions.jsonl'), 'utf8'), categories);
  return { name, categories, projects, questions };
}

/** Judged paths that are not topics of the question's project (empty when the corpus is consistent). */
export function missingJudgments(corpus: CodingCorpus): string[] {
  const topics = new Map(corpus.projects.map((p) => [p.name, new Set(p.topics)]));
  return corpus.questions.flatMap((q) =>
    Object.keys(q.relevant)
      .filter((p) => !topics.get(q.project)?.has(p))
      .map((p) => `${q.id}: ${q.project}/${p}`),
  );
}

export function splitQuestions(questions: readonly CodingQuestion[], split: Split): CodingQuestion[] {
  if (split === 'all') return [...questions];
  // Stratified: the parity rule within each (project, category) group, so both halves hold about
  // half of every project and every category; file order is kept.
  const groups = new Map<string, CodingQuestion[]>();
  for (const q of questions) groups.set(`${q.project}/${q.category}`, [...(groups.get(`${q.project}/${q.category}`) ?? []), q]);
  const chosen = new Set([...groups.values()].flatMap((group) => splitConversations(group, split)));
  return questions.filter((q) => chosen.has(q));
}
