/**
 * Writes docs/errors.md from the registry of error kinds (src/base/error-kinds.ts): `npm run docs:errors`.
 * test/errors.test.ts fails when the file and the registry differ.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERROR_KINDS } from '../src/base/error-kinds.js';

export const ERROR_DOCS_FILE = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'docs', 'errors.md');

export function renderErrorDocs(): string {
  const rows = Object.entries(ERROR_KINDS)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([kind, meaning]) => `| \`${kind}\` | ${meaning.replaceAll('|', '\\|')} |`);
  return [
    '# Error kinds',
    '',
    '<!-- Generated from src/base/error-kinds.ts by `npm run docs:errors`; do not edit by hand. -->',
    '',
    'Every failure brv reports carries a `kind`: a stable name scripts and agents can match on (kinds are',
    'API and are never renamed). The same failure has the same kind everywhere:',
    '',
    '- CLI, `--format json`: `{"command", "success": false, "data": {"error": {"kind", "message"}}, "timestamp"}`,',
    '  exit code 1 (2 for `usage`).',
    '- CLI, `--format text`: `error: <message> [<kind>]` on stderr.',
    "- The curate protocol (`brv curate`): `errors[].kind` in its envelope, as in ByteRover's tool mode.",
    '- The MCP server: a tool result with `isError` whose text names `✗ <kind>: <message>`; arguments outside',
    "  a tool's input schema are `usage`, as a bad command line is.",
    '',
    `${Object.keys(ERROR_KINDS).length} kinds:`,
    '',
    '| kind | meaning |',
    '|---|---|',
    ...rows,
    '',
  ].join('\n');
}

if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  writeFileSync(ERROR_DOCS_FILE, renderErrorDocs());
  process.stdout.write(`wrote ${path.relative(process.cwd(), ERROR_DOCS_FILE)}\n`);
}
