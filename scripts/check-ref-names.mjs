// Only src/store/ spells brv's ref names (CONTRIBUTING.md, "Architecture"): fails on a string,
// template or regular-expression literal containing "refs/brv" (also spelled refs\/brv) in any other file under the given
// source directory (default src/). Comments are not code and may name refs; they are skipped by
// parsing each file with TypeScript rather than by matching text. Run by `npm run lint:layers`.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

const NAME = 'refs/brv';
const root = path.resolve(process.argv[2] ?? 'src');
const allowed = path.join(root, 'store') + path.sep;

function* sourceFiles(dir) {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const file = path.join(dir, entry.name);
    if (entry.isDirectory()) yield* sourceFiles(file);
    else if (/\.(c|m)?tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) yield file;
  }
}

const problems = [];
for (const file of sourceFiles(root)) {
  if (file.startsWith(allowed) || file === path.join(root, 'base', 'ref-names.ts')) continue;
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const visit = (node) => {
    if (
      (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node) || ts.isRegularExpressionLiteral(node)) &&
      node.getText(source).replaceAll('\\/', '/').includes(NAME)
    ) {
      const { line, character } = source.getLineAndCharacterOfPosition(node.getStart(source));
      problems.push(`${path.relative(process.cwd(), file)}:${line + 1}:${character + 1}: ${node.getText(source)}`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
}

if (problems.length > 0) {
  console.error(
    `error ref-names: only src/store/ and src/base/ref-names.ts spell "${NAME}" (use its constants and functions, e.g. BRV_REF_PREFIX):`,
  );
  for (const problem of problems) console.error(`  ${problem}`);
  process.exit(1);
}
console.log(`✔ no "${NAME}" outside store/ and base/ref-names.ts`);
