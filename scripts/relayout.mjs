// Issue 33, item 1, "the tree is the diagram": moves src/ into folders named for the floors
// (scripts/relayout-diagram.md), rewrites every relative import that the moves break, every path
// string that names a moved file, and the layer rules of .dependency-cruiser.cjs.
//
//   node scripts/relayout.mjs            move (refuses on a dirty work tree: run it on a clean checkout)
//   node scripts/relayout.mjs --dry-run  print the moves only
//
// A file without an entry in FILES follows its folder (FOLDERS), so files added after this script
// was written move too. Running it again finds nothing to move and changes nothing.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

const DRY = process.argv.includes('--dry-run');
const FORCE = process.argv.includes('--force');

/** Old folder (under src/) → new folder. Folders not named here stay where they are. */
const FOLDERS = {
  query: 'index', // split below: the ranking half goes to search/
  review: 'vc',
  sync: 'vc',
  source: 'vc',
  hooks: 'setup/hooks',
  connectors: 'setup/connectors',
  doctor: 'setup',
  templates: 'setup',
  llm: 'models/llm',
  dream: 'models/dream',
};

/** Per-file moves (old → new, under src/): they win over FOLDERS. */
const FILES = {
  // base/: what every layer may use
  'errors.ts': 'base/errors.ts',
  'error-kinds.ts': 'base/error-kinds.ts',
  'trace.ts': 'base/trace.ts',
  'package-root.ts': 'base/package-root.ts',
  'store/refs.ts': 'base/ref-names.ts',
  // proc/: the processes brv starts that are not git
  'git/editor.ts': 'proc/editor.ts',
  'git/opener.ts': 'proc/opener.ts',
  'git/detached.ts': 'proc/detached.ts',
  // byterover/: ByteRover's layout in and out
  'topic/legacy-markdown.ts': 'byterover/legacy-markdown.ts',
  'curate/byterover-tree.ts': 'byterover/tree.ts',
  'curate/byterover-repair.ts': 'byterover/repair.ts',
  'curate/import.ts': 'byterover/import.ts',
  'curate/export.ts': 'byterover/export.ts',
  // three history.ts, three meanings
  'store/history.ts': 'store/log.ts', // a branch's commit log, read with its trailers
  'service/history.ts': 'service/vc.ts', // the service's version-control capability (log, diff, branches, merge)
  'dream/history.ts': 'models/dream/last-changes.ts', // each path's last change, for dream's candidates
  // search/: analysis of the question, scoring, ranking features, fusion, federation
  'query/search.ts': 'search/search.ts',
  'query/query-topics.ts': 'search/query-topics.ts',
  'query/passages.ts': 'search/passages.ts',
  'query/fusion.ts': 'search/fusion.ts',
  'query/federate.ts': 'search/federate.ts',
  'query/feedback.ts': 'search/feedback.ts',
  'query/question.ts': 'search/question.ts',
  'query/word-neighbours.ts': 'search/word-neighbours.ts',
  'query/dense.ts': 'search/dense.ts',
  // the rest of query/ is the on-disk index (FOLDERS): segments, stack, manifest (tree-index), build,
  // maintenance lock, extraction (extract, fast-extract, document, fields), doc-cache, docstore,
  // embedding cache, and analyze.ts: the analyzer that makes the segments' terms (INDEX_VERSION)
};

/** Text files outside src/ whose path strings naming src files are rewritten. */
const TEXT_ROOTS = ['src', 'test', 'bench', 'scripts', 'docs'];
const TEXT_FILES = [
  'package.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'tsconfig.client.json',
  'knip.json',
  'CONTRIBUTING.md',
  'README.md',
  '.dependency-cruiser.cjs',
];
/** Paths that name a user's files in fixtures (src/errors.ts of a test repository), not brv's. */
const TEXT_SKIP = [
  /^scripts\/relayout/,
  /^test\/golden\//,
  /^test\/hooks\/cited\.test\.ts$/,
  /^test\/dream\//,
  /^test\/curate\/attachments\.test\.ts$/,
];
const CODE = /\.(ts|tsx|mts|cts|mjs|cjs|js)$/;
const TEXT = /\.(ts|tsx|mts|cts|mjs|cjs|js|json|md)$/;

const git = (...args) => execFileSync('git', args, { encoding: 'utf8' });
const log = (line) => process.stdout.write(`${line}\n`);

// ---- the plan -----------------------------------------------------------------------------------

const srcFiles = git('ls-files', '-z', 'src').split('\0').filter(Boolean);
const tracked = new Set(srcFiles);

function target(file) {
  const rel = file.slice('src/'.length);
  if (FILES[rel]) return `src/${FILES[rel]}`;
  const parts = rel.split('/');
  for (let n = parts.length - 1; n >= 1; n--) {
    const folder = parts.slice(0, n).join('/');
    if (FOLDERS[folder] !== undefined) return `src/${FOLDERS[folder]}/${parts.slice(n).join('/')}`;
  }
  return file;
}

const moves = new Map();
for (const file of srcFiles) {
  const to = target(file);
  if (to !== file) moves.set(file, to);
}

if (moves.size === 0) {
  log('relayout: nothing to move (src/ is laid out already)');
  process.exit(0);
}

/** query/'s files that are the index (FOLDERS sends them there); a query/ file in neither list is new. */
const INDEX_FILES = [
  'analyze',
  'checksum',
  'doc-cache',
  'docstore',
  'document',
  'embedding-cache',
  'embedding-text',
  'extract',
  'fast-extract',
  'fields',
  'maintenance-lock',
  'posting-reader',
  'segment-file',
  'segment-stamps',
  'segment',
  'stack',
  'tree-index',
  'varint',
].map((name) => `src/query/${name}.ts`);
const unmapped = [...moves.keys()].filter((f) => f.startsWith('src/query/') && !FILES[f.slice(4)] && !INDEX_FILES.includes(f));
const finals = new Set(srcFiles.map(target));
if (finals.size !== srcFiles.length) throw new Error('relayout: two files would move to one path');
for (const [from, to] of moves) {
  if (tracked.has(to)) throw new Error(`relayout: ${from} → ${to}, which exists and does not move away`);
}

if (!DRY && !FORCE && git('status', '--porcelain').trim() !== '') {
  console.error('relayout: the work tree has changes; commit them first (or pass --force)');
  process.exit(1);
}

// ---- import specifiers --------------------------------------------------------------------------

/** Every file the rewrite reads: code and text under the roots, plus the named top-level files. */
function* walk(dir) {
  if (!existsSync(dir)) return;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name === 'dist' || entry.name.startsWith('.')) continue;
    const file = path.posix.join(dir, entry.name);
    if (entry.isDirectory()) yield* walk(file);
    else yield file;
  }
}
const textFiles = [...TEXT_ROOTS.flatMap((root) => [...walk(root)]), ...TEXT_FILES.filter((f) => existsSync(f))].filter((f) =>
  TEXT.test(f),
);

/** The file a relative specifier names (old tree), as a repository path, or undefined. */
function resolveOld(fromFile, spec) {
  const base = path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), spec));
  const candidates = [base];
  if (/\.js$/.test(base)) candidates.push(base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'));
  if (/\.jsx$/.test(base)) candidates.push(base.replace(/\.jsx$/, '.tsx'));
  if (!/\.[a-z]+$/.test(base)) candidates.push(`${base}.ts`, `${base}.tsx`, `${base}/index.ts`);
  for (const c of candidates) if (tracked.has(c)) return { file: c, base };
  for (const c of candidates) if (existsSync(c) && statSync(c).isFile()) return { file: c, base };
  if (existsSync(base)) return { file: base, base };
  return undefined;
}

/** The specifier from `newFrom` to the new place of what `spec` named from `oldFrom`. */
function respecify(oldFrom, newFrom, spec) {
  const hit = resolveOld(oldFrom, spec);
  if (!hit) return undefined;
  const newTarget = moves.get(hit.file) ?? hit.file;
  if (newTarget === hit.file && newFrom === oldFrom) return spec;
  // keep the specifier's own spelling of the extension (.js for .ts) and of a directory import
  let suffix = '';
  let targetPath = newTarget;
  if (hit.file !== hit.base) {
    const oldExt = path.posix.extname(hit.file);
    const specExt = path.posix.extname(hit.base);
    if (hit.file === `${hit.base}/index.ts`) {
      targetPath = path.posix.dirname(newTarget);
    } else {
      targetPath = newTarget.slice(0, -oldExt.length);
      suffix = specExt; // '' for an extensionless specifier, '.js' for a .ts file
    }
  }
  let rel = path.posix.relative(path.posix.dirname(newFrom), targetPath) + suffix;
  if (!rel.startsWith('.')) rel = `./${rel}`;
  return rel;
}

// import … from '…', export … from '…', import '…', import('…'), require('…'), typeof import('…')
const SPECIFIER = /(\bfrom\s*|\bimport\s*\(\s*|\bimport\s+|\brequire\s*\(\s*)(['"])(\.{1,2}\/[^'"\n]*)\2/g;

const newName = (file) => moves.get(file) ?? file;
const changed = new Map(); // new path → text
const warnings = [];

/**
 * test/layers.test.ts writes a small src/ tree from string literals: its imports are relative to the
 * fixture's own paths, which move like the real ones (the paths themselves are rewritten below).
 */
const LAYERS_TEST = 'test/layers.test.ts';
function relayoutFixture(text) {
  const entry = /'(src\/[\w/.-]+\.tsx?)':(\s*)(["'])((?:\\.|(?!\3)[^\\])*)\3/g;
  return text.replace(entry, (all, key, space, quote, content) => {
    const newKey = target(key);
    const body = content.replace(/from '(\.{1,2}\/[^']+)'/g, (_, spec) => {
      const oldTarget = path.posix.normalize(path.posix.join(path.posix.dirname(key), spec)).replace(/\.js$/, '.ts');
      let rel = path.posix.relative(path.posix.dirname(newKey), target(oldTarget)).replace(/\.ts$/, '.js');
      if (!rel.startsWith('.')) rel = `./${rel}`;
      return `from '${rel}'`;
    });
    return `'${key}':${space}${quote}${body}${quote}`;
  });
}

for (const file of textFiles) {
  if (!CODE.test(file) || file.startsWith('scripts/relayout')) continue;
  let text = readFileSync(file, 'utf8');
  if (file === LAYERS_TEST) {
    const fixed = relayoutFixture(text);
    if (fixed !== text) changed.set(file, fixed);
    text = fixed;
  }
  const to = newName(file);
  const out = text.replace(SPECIFIER, (all, lead, quote, spec) => {
    const next = respecify(file, to, spec);
    if (next === undefined) {
      // (bench/ and scripts/ hold code in strings and virtual modules; tsc checks their real imports)
      if (file !== LAYERS_TEST && /^(src|test)\//.test(file)) warnings.push(`${file}: cannot resolve ${spec}`);
      return all;
    }
    return `${lead}${quote}${next}${quote}`;
  });
  if (out !== text) changed.set(file, out);
}

// ---- path strings that name src files (comments, config, tests that read sources) --------------

const byOld = [...moves].sort((a, b) => b[0].length - a[0].length);
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathPattern = new RegExp(
  `(?<![A-Za-z0-9_-])(${byOld.map(([from]) => escape(from.replace(/\.tsx?$/, ''))).join('|')})(\\.tsx?|\\.js)(?![A-Za-z0-9_-])`,
  'g',
);
const stem = new Map(byOld.map(([from, to]) => [from.replace(/\.tsx?$/, ''), to.replace(/\.tsx?$/, '')]));

for (const file of textFiles) {
  if (TEXT_SKIP.some((re) => re.test(file))) continue;
  const text = changed.get(file) ?? readFileSync(file, 'utf8');
  const out = text.replace(pathPattern, (all, old, ext) => `${stem.get(old)}${ext}`);
  if (out !== text) changed.set(file, out);
}

// ---- edits the moves need beyond paths -----------------------------------------------------------

function edit(file, from, to) {
  const text = changed.get(file) ?? (existsSync(file) ? readFileSync(file, 'utf8') : undefined);
  if (text === undefined || !text.includes(from)) return warnings.push(`${file}: expected text not found: ${from.trim()}`);
  changed.set(file, text.replace(from, to));
}

// topic/ is pure: its barrel no longer re-exports the ByteRover converter; its tests import it from byterover/.
edit('src/topic/index.ts', "export { convertLegacyMarkdown } from '../byterover/legacy-markdown.js';\n", '');
for (const file of textFiles.filter((f) => CODE.test(f) && /^(test|bench)\//.test(f))) {
  const text = changed.get(file) ?? readFileSync(file, 'utf8');
  const barrel = /import \{([^}]*)\bconvertLegacyMarkdown\b,?\s*([^}]*)\} from '((?:\.\.\/)+)src\/topic\/index\.js';/;
  const m = barrel.exec(text);
  if (!m) continue;
  const rest = `${m[1]}${m[2]}`.replace(/,\s*$/, '').trim();
  const lines = [`import { convertLegacyMarkdown } from '${m[3]}src/byterover/legacy-markdown.js';`];
  if (rest) lines.push(`import { ${rest} } from '${m[3]}src/topic/index.js';`);
  changed.set(file, text.replace(m[0], lines.join('\n')));
}
// the one file outside store/ that spells refs/brv names
edit(
  'scripts/check-ref-names.mjs',
  'if (file.startsWith(allowed)) continue;',
  "if (file.startsWith(allowed) || file === path.join(root, 'base', 'ref-names.ts')) continue;",
);
edit('scripts/check-ref-names.mjs', 'only src/store/ spells "${NAME}"', 'only src/store/ and src/base/ref-names.ts spell "${NAME}"');
edit('scripts/check-ref-names.mjs', 'outside store/`', 'outside store/ and base/ref-names.ts`');
edit('test/layers.test.ts', "path.join(dir, 'src/sync')", "path.join(dir, 'src/vc')");
// one violation of each new rule, so none of them can silently stop finding anything
edit(
  'test/layers.test.ts',
  'const LAYERED = {\n',
  `const LAYERED = {
  'src/index/segment.ts': "import { search } from '../search/search.js';\\nexport const segment = search;\\n",
  'src/search/rank.ts': "import { run } from '../vc/merge.js';\\nexport const rank = run;\\n",
  'src/proc/editor.ts': "import type { A } from '../store/a.js';\\nexport type Editor = A;\\n",
`,
);
edit(
  'test/layers.test.ts',
  '        // a cycle is reported once',
  `        'error index-imports-upward: src/index/segment.ts → src/search/search.ts',
        'error search-imports-upward: src/search/rank.ts → src/vc/merge.ts',
        'error proc-imports-upward: src/proc/editor.ts → src/store/a.ts',
        // a cycle is reported once`,
);

const DEPCRUISE = `// The layers of src/ (scripts/relayout-diagram.md, CONTRIBUTING.md "Architecture"), checked by
// \`npm run lint:layers\` in \`npm test\`. Each layer imports only itself and the layers below it; type-only and
// dynamic imports count like any other. test/layers.test.ts runs this configuration on a fixture tree with violations.
// (Written by scripts/relayout.mjs.)

/** The floors, bottom first. */
const TOPIC = '^src/topic/';
/** errors, error kinds, trace marks, the package root, the refs/brv names: over topic/ only. */
const BASE = '^src/base/';
const GIT = '^src/git/';
/** The processes brv starts that are not git (the editor, the browser opener, detached work), through git/'s runner. */
const PROC = '^src/proc/';
/** The typed brv.* settings: read through git only, so the store's review policy can use them. */
const SETTINGS = '^src/settings/';
const STORE = '^src/store/';
/** The on-disk search index: segments, stacks, manifests, build, maintenance, extraction, caches. */
const INDEX = '^src/index/';
/** Ranking over the index: question analysis, scoring, ranking features, fusion, federation. */
const SEARCH = '^src/search/';
/** What the service offers, side by side: each may use the others as long as no cycle forms. */
const FEATURES = '^src/(curate|byterover|vc|setup|models)/';
const SERVICE = '^src/service/';
/** Results → terminal text and markdown, for every front end: pure functions over the service's results. */
const VIEWS = '^src/views/';
const FRONT_ENDS = '^src/(cli|mcp|web|tui)/';

/** What every layer may use. */
const LEAVES = [TOPIC, BASE];
/** A module in no layer: a new directory must be placed in a layer here and in the diagram first. */
const ANY_LAYER = [...LEAVES, GIT, PROC, SETTINGS, STORE, INDEX, SEARCH, FEATURES, SERVICE, VIEWS, FRONT_ENDS];

/** Only the given layers (and the leaves), as a \`to.pathNot\` list: anything else in src/ is above. */
const onlyTo = (...layers) => ({ path: '^src/', pathNot: [...LEAVES, ...layers] });
const BELOW_FEATURES = [SEARCH, INDEX, STORE, SETTINGS, PROC, GIT];

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-cycle',
      severity: 'error',
      comment: 'A file must not depend on itself through other files (type-only imports included).',
      from: {},
      to: { circular: true },
    },
    {
      name: 'outside-layers',
      severity: 'error',
      comment: 'Every module in src/ belongs to a layer: add a new directory to .dependency-cruiser.cjs and the diagram.',
      from: { path: '^src/', pathNot: ANY_LAYER },
      to: {},
    },
    {
      name: 'topic-is-pure',
      severity: 'error',
      comment: 'src/topic/ is a pure leaf: it imports nothing from src/ outside topic/.',
      from: { path: TOPIC },
      to: { path: '^src/', pathNot: TOPIC },
    },
    {
      name: 'topic-no-node',
      severity: 'error',
      comment: 'src/topic/ is pure: no Node built-in module (no fs, no processes, no network).',
      from: { path: TOPIC },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'leaf-files',
      severity: 'error',
      comment: 'src/base/ (errors, error kinds, trace, package root, ref names) imports only base/ and topic/.',
      from: { path: BASE },
      to: onlyTo(),
    },
    {
      name: 'git-imports-upward',
      severity: 'error',
      comment: 'src/git/ is the bottom layer: it imports only git/ and the leaves.',
      from: { path: GIT },
      to: onlyTo(GIT),
    },
    {
      name: 'proc-imports-upward',
      severity: 'error',
      comment: 'src/proc/ imports only proc/, git/ and the leaves.',
      from: { path: PROC },
      to: onlyTo(PROC, GIT),
    },
    {
      name: 'settings-imports-upward',
      severity: 'error',
      comment: 'src/settings/ imports only settings/, proc/, git/ and the leaves.',
      from: { path: SETTINGS },
      to: onlyTo(SETTINGS, PROC, GIT),
    },
    {
      name: 'store-imports-upward',
      severity: 'error',
      comment: 'src/store/ imports only store/, settings/, proc/, git/ and the leaves.',
      from: { path: STORE },
      to: onlyTo(STORE, SETTINGS, PROC, GIT),
    },
    {
      name: 'index-imports-upward',
      severity: 'error',
      comment: 'src/index/ imports only index/, store/ and what is below it; never search/ (ranking is above the index).',
      from: { path: INDEX },
      to: onlyTo(INDEX, STORE, SETTINGS, PROC, GIT),
    },
    {
      name: 'search-imports-upward',
      severity: 'error',
      comment: 'src/search/ imports only search/, index/ and what is below it; never a feature, the service or a front end.',
      from: { path: SEARCH },
      to: onlyTo(...BELOW_FEATURES),
    },
    {
      name: 'feature-imports-upward',
      severity: 'error',
      comment:
        'Features (curate, byterover, vc, setup, models) import each other (without cycles) and what is below them; never service/ or a front end.',
      from: { path: FEATURES },
      to: onlyTo(FEATURES, ...BELOW_FEATURES),
    },
    {
      name: 'service-imports-upward',
      severity: 'error',
      comment: 'src/service/ imports features and what is below them; never views/ or a front end.',
      from: { path: SERVICE },
      to: onlyTo(SERVICE, FEATURES, ...BELOW_FEATURES),
    },
    {
      name: 'views-imports-upward',
      severity: 'error',
      comment: 'src/views/ imports the service (its result types) and what is below it; never a front end.',
      from: { path: VIEWS },
      to: onlyTo(VIEWS, SERVICE, FEATURES, ...BELOW_FEATURES),
    },
    {
      name: 'front-ends-use-the-service',
      severity: 'error',
      comment:
        'Front ends (CLI, MCP, the web dashboard, the TUI) reach brv only through the service and the views (and the leaves): ' +
        'no feature, search, index, store, settings, proc or git module. What they need is a service operation or a view.',
      from: { path: FRONT_ENDS },
      to: onlyTo(FRONT_ENDS, SERVICE, VIEWS),
    },
    {
      name: 'service-context-is-internal',
      severity: 'error',
      comment: "src/service/context.ts (an opened repository's shared state) is for the service's own modules only.",
      from: { path: '^src/', pathNot: SERVICE },
      to: { path: '^src/service/context\\\\.ts$' },
    },
    {
      name: 'mcp-imports-cli',
      severity: 'error',
      comment: 'The MCP server does not use the CLI (the CLI may start the MCP server: \`brv mcp\`).',
      from: { path: '^src/mcp/' },
      to: { path: '^src/cli/' },
    },
    {
      name: 'web-imports-cli',
      severity: 'error',
      comment: 'The web dashboard server does not use the CLI or the MCP server (the CLI starts it: \`brv webui\`).',
      from: { path: '^src/web/' },
      to: { path: '^src/(cli|mcp)/' },
    },
    {
      name: 'tui-imports-cli',
      severity: 'error',
      comment: 'The TUI does not use the CLI, the MCP server or the web dashboard (the CLI starts it: \`brv tui\`).',
      from: { path: '^src/tui/' },
      to: { path: '^src/(cli|mcp|web)/' },
    },
    {
      name: 'process-outside-git',
      severity: 'error',
      comment: 'Only src/git/ spawns processes (argument arrays, cleaned environment, explicit --git-dir); proc/ goes through it.',
      from: { path: '^src/', pathNot: GIT },
      to: { dependencyTypes: ['core'], path: '^(node:)?(child_process|cluster)$' },
    },
    {
      name: 'not-resolvable',
      severity: 'error',
      comment:
        'A relative import the checker cannot resolve would escape every other rule. (Packages are left to tsc: ' +
        'type-only ones such as "hast", which exist only as @types/hast, are not resolved by dependency-cruiser.)',
      from: { path: '^src/' },
      to: { couldNotResolve: true, path: '^[.]' },
    },
  ],
`;

/** SHA-256 of the rules (everything above \`options\`) when this script was written (main at 0ff22c2). */
const RULES_WRITTEN_FOR = 'a87353f1c93017420956bacfc91e1753463bdd82c1db721b542bb07b74c87e1b';
{
  // keep the options block as it is today (other changes to it survive); replace the layers above it
  const file = '.dependency-cruiser.cjs';
  const before = readFileSync(file, 'utf8');
  const at = before.indexOf('  options: {');
  if (at < 0) warnings.push(`${file}: no options block found; layer rules not rewritten`);
  else {
    const rules = before.slice(0, at);
    if (createHash('sha256').update(rules).digest('hex') !== RULES_WRITTEN_FOR) {
      const saved = '.dependency-cruiser.before-relayout.cjs';
      writeFileSync(saved, before);
      warnings.push(
        `${file}: its rules changed since this script was written; the new rules replace them: ` +
          `compare with ${saved} (not staged) and carry any new rule or folder over by hand`,
      );
    }
    changed.set(file, DEPCRUISE + (changed.get(file) ?? before).slice(at));
  }
}

// every folder and top-level file of the new src/ must be in a layer of the new rules
const LAYER_FOLDERS = new Set([
  'topic',
  'base',
  'git',
  'proc',
  'settings',
  'store',
  'index',
  'search',
  'curate',
  'byterover',
  'vc',
  'setup',
  'models',
  'service',
  'views',
  'cli',
  'mcp',
  'web',
  'tui',
]);
for (const file of new Set(srcFiles.map(target))) {
  const top = file.split('/')[1];
  if (!file.slice(4).includes('/')) warnings.push(`${file}: a file at the top of src/ is in no layer; give it an entry in FILES`);
  else if (!LAYER_FOLDERS.has(top)) warnings.push(`${file}: src/${top}/ is in no layer; add it to FOLDERS or to the rules`);
}

// ---- do it --------------------------------------------------------------------------------------

const width = Math.max(...[...moves.keys()].map((f) => f.length));
for (const [from, to] of [...moves].sort()) log(`  ${from.padEnd(width)}  →  ${to}`);
log(`relayout: ${moves.size} files move; ${changed.size} files rewritten`);
for (const w of warnings) console.error(`relayout: warning: ${w}`);
if (unmapped.length) {
  console.error('relayout: new files of query/ (not known when this script was written) go to index/; move them to search/ if they rank:');
  for (const f of unmapped) console.error(`  ${f}`);
}
if (DRY) process.exit(0);

// files prettier (the project's formatter) accepts now stay so after the rewrite: shorter or longer
// specifiers can change how an import wraps
const PRETTIER = 'node_modules/.bin/prettier';
const formatted = [...changed.keys()].filter((f) => CODE.test(f));
let tidy = [];
if (existsSync(PRETTIER) && formatted.length) {
  let dirty = '';
  try {
    dirty = execFileSync(PRETTIER, ['--list-different', ...formatted], { encoding: 'utf8' });
  } catch (error) {
    dirty = String(error.stdout ?? ''); // exit code 1: some files differ
  }
  const before = new Set(dirty.split('\n').filter(Boolean));
  tidy = formatted.filter((f) => !before.has(f));
}

// write the rewritten texts at their old paths, then move: git mv keeps them staged as renames
for (const [file, text] of changed) writeFileSync(file, text);
for (const [from, to] of moves) {
  mkdirSync(path.posix.dirname(to), { recursive: true });
  git('mv', from, to);
}
// folders the moves emptied (git does not keep empty folders; the work tree does)
for (const dir of new Set([...moves.keys()].map((f) => path.posix.dirname(f)))) {
  for (let d = dir; d !== 'src' && existsSync(d) && readdirSync(d).length === 0; d = path.posix.dirname(d)) rmdirSync(d);
}
if (tidy.length) execFileSync(PRETTIER, ['--write', '--log-level', 'warn', ...tidy.map(newName)], { stdio: 'inherit' });
const touched = [...changed.keys()].map(newName).filter((f) => git('ls-files', '--', f).trim() !== '');
if (touched.length) git('add', '--', ...touched);
log('relayout: done; check with npm run typecheck && npm run lint:layers && npm run lint:unused && npm run build');
