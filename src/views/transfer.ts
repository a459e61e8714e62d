import type { ExportResult, ImportResult } from '../service/knowledge.js';
import { plural, shortOid } from './format.js';

type ImportView = ImportResult;

/** `brv import` when it imported nothing because files are invalid. */
export function importRefusedText(result: ImportView): string {
  const lines = [
    result.dryRun ? 'Dry run: nothing would be imported; fix these files first:' : 'Nothing was imported; fix these files first:',
  ];
  for (const problem of result.problems)
    for (const error of problem.errors) lines.push(`  ${problem.file}: ${error.kind}: ${error.message}`);
  return lines.join('\n');
}

/** Notes (for stderr) about an import: skipped invalid files, converted Markdown, files that are not topics. */
export function importNotes(result: ImportView): string[] {
  const notes: string[] = [];
  for (const problem of result.problems)
    for (const error of problem.errors) notes.push(`skipped ${problem.file}: ${error.kind}: ${error.message}`);
  for (const topic of result.converted) {
    notes.push(`converted from Markdown: ${topic.relative} → ${topic.path}`);
    for (const line of topic.notes) notes.push(`  ${line}`);
  }
  // ByteRover's generated folder descriptions look like topics: say by name that they were left out.
  const contexts = result.skipped.filter((file) => file.reason === 'derived' && /(^|\/)context\.md$/.test(file.relative));
  if (contexts.length > 0)
    notes.push(`not imported: ${contexts.map((file) => file.relative).join(', ')} (folder descriptions ByteRover generated, not topics)`);
  if (result.skipped.length > 0)
    notes.push(`${result.skipped.length} file(s) not topics (generated indexes, archives, other files): see --format json`);
  return notes;
}

/** One line per repair, per file: what brv changed so a topic ByteRover accepted is accepted. */
function repairLines(result: ImportView): string[] {
  if (result.repaired.length === 0) return [];
  const lines = [`Repaired ${plural(result.repaired.length, 'topic')} that ByteRover accepts but brv stores differently:`];
  for (const topic of result.repaired)
    for (const repair of topic.repairs) lines.push(`  ${topic.relative}: ${repair.repair}: ${repair.message}`);
  return lines;
}

/** `brv import`: what was imported (or, with --dry-run, what would be). */
export function importText(result: ImportView): string {
  const counts = `${result.added.length} new and ${result.updated.length} updated topics (${result.unchanged} unchanged)`;
  const summary = result.dryRun
    ? result.added.length + result.updated.length > 0
      ? `Dry run: would import ${counts}; nothing was written.`
      : `Dry run: nothing to import, ${result.unchanged} topics already up to date; nothing was written.`
    : result.commit
      ? `Imported ${counts} in commit ${shortOid(result.commit)}.`
      : `Nothing to import: ${result.unchanged} topics already up to date.`;
  const lines = [summary, ...repairLines(result)];
  if (result.dryRun) {
    for (const topic of result.added) lines.push(`  would add ${topic}`);
    for (const topic of result.updated) lines.push(`  would update ${topic}`);
  }
  return lines.join('\n');
}

/** Progress of `brv import` on stderr (never with --format json). */
export function importProgressText(validated: number, total: number): string {
  return `Validated ${validated}/${total} topics…`;
}

/** `brv export`. */
export function exportText(result: ExportResult): string {
  const lines = [
    `Exported ${plural(result.topics.length, 'topic')} to ${result.directory}${result.replaced ? ' (replaced the previous tree)' : ''}.`,
  ];
  for (const collision of result.caseCollisions) lines.push(`warning: ${collision.message} [${collision.kind}]`);
  return lines.join('\n');
}
