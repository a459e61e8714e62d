import type { ExportResult, ImportResult } from '../service/knowledge.js';
import { plural, shortOid } from './format.js';

type ImportView = ImportResult;

/** `brv import` when it imported nothing because files are invalid. */
export function importRefusedText(result: ImportView): string {
  const lines = ['Nothing was imported; fix these files first:'];
  for (const problem of result.problems)
    for (const error of problem.errors) lines.push(`  ${problem.file}: ${error.kind}: ${error.message}`);
  return lines.join('\n');
}

/** Notes (for stderr) about an import: skipped invalid files, converted Markdown, files that are not topics. */
export function importNotes(result: ImportView): string[] {
  const notes: string[] = [];
  for (const problem of result.problems)
    for (const error of problem.errors) notes.push(`skipped ${problem.file}: ${error.kind}: ${error.message}`);
  for (const topic of result.converted) notes.push(`converted from Markdown: ${topic.relative} → ${topic.path}`);
  if (result.skipped.length > 0)
    notes.push(`${result.skipped.length} file(s) not topics (generated indexes, archives, other files): see --format json`);
  return notes;
}

/** `brv import`: what was imported. */
export function importText(result: ImportView): string {
  return result.commit
    ? `Imported ${result.added.length} new and ${result.updated.length} updated topics (${result.unchanged} unchanged) in commit ${shortOid(result.commit)}.`
    : `Nothing to import: ${result.unchanged} topics already up to date.`;
}

/** `brv export`. */
export function exportText(result: ExportResult): string {
  return `Exported ${plural(result.topics.length, 'topic')} to ${result.directory}${result.replaced ? ' (replaced the previous tree)' : ''}.`;
}
