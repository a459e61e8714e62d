import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ERROR_DOCS_FILE, renderErrorDocs } from '../scripts/error-docs.js';
import { ERROR_KINDS, isErrorKind } from '../src/base/error-kinds.js';
import { TOPIC_ERROR_KINDS } from '../src/topic/error-kinds.js';

const SRC = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', 'src');

async function sourceFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  const nested = await Promise.all(
    entries.map((e) => (e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [])),
  );
  return nested.flat();
}

test('docs/errors.md is the table generated from the registry (run npm run docs:errors)', async (t) => {
  const docs = await readFile(ERROR_DOCS_FILE, 'utf8');
  t.is(docs, renderErrorDocs(), 'docs/errors.md is out of date: run npm run docs:errors');
  // Both ways: every kind has a row, every row is a kind.
  const rows = [...docs.matchAll(/^\| `([^`]+)` \| (.+) \|$/gm)].map((m) => m[1]!);
  t.deepEqual(rows.slice().sort(), Object.keys(ERROR_KINDS).sort());
});

test('every kind is kebab-case with a one-line meaning', (t) => {
  for (const [kind, meaning] of Object.entries(ERROR_KINDS)) {
    t.regex(kind, /^[a-z]+(-[a-z]+)*$/, kind);
    t.regex(meaning, /^\S[^\n]*\.$/, `${kind}: one line, ending with a full stop`);
    t.true(meaning.length <= 160, `${kind}: the meaning fits one line`);
  }
});

test('the topic validation kinds are part of the one registry', (t) => {
  for (const kind of Object.keys(TOPIC_ERROR_KINDS)) t.true(isErrorKind(kind), kind);
  t.false(isErrorKind('toString'), 'inherited properties are not kinds');
  t.false(isErrorKind('no-such-kind'));
});

test('every kind literal in src/ is registered (catches casts that tsc cannot see)', async (t) => {
  // `new BrvError('kind'`, `super('kind'` in its subclasses, `failed('kind'` in the curate protocol,
  // and `kind: 'kind'` in error objects (the few `kind:` literals that are not errors are listed).
  const NOT_ERRORS = new Set(['topic', 'commit', 'parts', 'manual', 'none', 'block', 'rules', 'diagrams', 'facts', 'reason', 'folder']);
  const NOT_ERRORS_TOO = new Set(['raw-concept', 'narrative', 'relations']);
  // Change events (base/ref-names.ts, the repository pool) and the TUI's argument kinds.
  const NOT_ERRORS_EITHER = new Set(['branch', 'review', 'remote', 'source', 'other', 'text']);
  const patterns = [
    /new BrvError\(\s*'([^']+)'/g,
    /super\(\s*'([^']+)'/g,
    /\bfailed\(\s*'([^']+)'/g,
    /\bkind: '([^']+)'/g,
    /\bkind\?: ErrorKind \}\)\.kind (?:!==|===|\?\?) '([^']+)'/g,
  ];
  const unregistered: string[] = [];
  let seen = 0;
  for (const file of await sourceFiles(SRC)) {
    if (file.endsWith('error-kinds.ts')) continue;
    const text = await readFile(file, 'utf8');
    for (const pattern of patterns) {
      for (const match of text.matchAll(pattern)) {
        const kind = match[1]!;
        if (NOT_ERRORS.has(kind) || NOT_ERRORS_TOO.has(kind) || NOT_ERRORS_EITHER.has(kind)) continue;
        seen++;
        if (!isErrorKind(kind)) unregistered.push(`${path.relative(SRC, file)}: ${kind}`);
      }
    }
    // A kind built from a template: `${kindPrefix}-read-error` is checked by its type; none other.
    for (const match of text.matchAll(/new BrvError\(\s*`/g))
      unregistered.push(`${path.relative(SRC, file)}: a template kind at ${match.index}`);
  }
  t.deepEqual(unregistered, []);
  t.true(seen > 150, `the scan found the kind literals (${seen})`);
});
