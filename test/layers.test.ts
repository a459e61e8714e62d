// The layer check of `npm run lint:layers` (.dependency-cruiser.cjs and scripts/check-ref-names.mjs)
// run on a small tree written to a temporary directory, with one violation of each rule: so the
// check cannot silently stop finding anything (a renamed path, a config the tool no longer reads).
import test from 'ava';
import { execa } from 'execa';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const DEPCRUISE = path.join(ROOT, 'node_modules/.bin/depcruise');
const CONFIG = path.join(ROOT, '.dependency-cruiser.cjs');
const REF_NAMES = path.join(ROOT, 'scripts/check-ref-names.mjs');

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(path.join(tmpdir(), 'brv-layers-'));
  const tsconfig = { compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', strict: true }, include: ['src'] };
  await writeFile(path.join(dir, 'tsconfig.json'), JSON.stringify(tsconfig));
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

const LAYERED = {
  'src/index/segment.ts': "import { search } from '../search/search.js';\nexport const segment = search;\n",
  'src/search/rank.ts': "import { run } from '../vc/merge.js';\nexport const rank = run;\n",
  'src/proc/editor.ts': "import type { A } from '../store/a.js';\nexport type Editor = A;\n",
  'src/base/errors.ts': 'export class BrvError extends Error {}\n',
  'src/topic/parse.ts':
    "import { readFileSync } from 'node:fs';\nimport { BrvError } from '../base/errors.js';\nexport const parse = () => [readFileSync, new BrvError()];\n",
  'src/git/run.ts':
    "import { spawn } from 'node:child_process';\nimport { search } from '../search/search.js';\nexport const run = () => [spawn, search];\n",
  'src/store/a.ts': "import type { B } from './b.js';\nexport interface A { b?: B }\n",
  'src/store/b.ts': "import type { A } from './a.js';\nexport interface B { a?: A }\n",
  'src/search/search.ts': "import { execFile } from 'node:child_process';\nexport const search = () => execFile;\n",
  'src/setup/doctor.ts': "import type { Brv } from '../service/brv.js';\nexport const diagnose = (brv: Brv) => brv;\n",
  'src/service/brv.ts': "import { print } from '../cli/output.js';\nexport class Brv { print = print; }\n",
  'src/mcp/server.ts': "import { print } from '../cli/output.js';\nexport const serve = print;\n",
  'src/cli/output.ts':
    "import { Brv } from '../service/brv.js';\nimport { parse } from '../topic/parse.js';\nexport const print = () => [Brv, parse];\n",
  'src/vc/merge.ts': "import { merge } from './missing.js';\nexport const run = merge;\n",
  'src/lsp/text.ts': "import { parse } from '../topic/parse.js';\nexport const text = parse;\n",
  'src/tui/app.ts': "import { print } from '../cli/output.js';\nexport const app = print;\n",
  'src/web/server.ts': "import { print } from '../cli/output.js';\nexport const serve = print;\n",
  'src/views/page.ts': "import { print } from '../cli/output.js';\nexport const page = print;\n",
  'src/settings/registry.ts': "import type { A } from '../store/a.js';\nexport type Setting = A;\n",
  'src/store/policy.ts': "import type { Setting } from '../settings/registry.js';\nexport type Policy = Setting;\n",
  'src/service/context.ts': 'export const CONTEXT = Symbol();\n',
  'src/cli/settings.ts': "import type { Setting } from '../settings/registry.js';\nexport type S = Setting;\n",
  'src/mcp/context.ts': "import { CONTEXT } from '../service/context.js';\nexport const c = CONTEXT;\n",
};

test('dependency-cruiser with the layer configuration reports every kind of violation, and only those', async (t) => {
  const dir = await tree(LAYERED);
  try {
    const run = await execa(DEPCRUISE, ['src', '--config', CONFIG], { cwd: dir, reject: false });
    const out = run.stdout + run.stderr;
    t.not(run.exitCode, 0, out);
    const violations = out
      .split('\n')
      .filter((line) => /^\s*error /.test(line))
      .map((line) => line.trim().replace(/\s+→\s*$/, ''));
    t.deepEqual(
      violations.sort(),
      [
        'error feature-imports-upward: src/setup/doctor.ts → src/service/brv.ts',
        'error git-imports-upward: src/git/run.ts → src/search/search.ts',
        'error mcp-imports-cli: src/mcp/server.ts → src/cli/output.ts',
        'error front-ends-use-the-service: src/cli/settings.ts → src/settings/registry.ts',
        'error service-context-is-internal: src/mcp/context.ts → src/service/context.ts',
        'error index-imports-upward: src/index/segment.ts → src/search/search.ts',
        'error search-imports-upward: src/search/rank.ts → src/vc/merge.ts',
        'error proc-imports-upward: src/proc/editor.ts → src/store/a.ts',
        // a cycle is reported once, from its first module; type-only imports count
        'error no-cycle: src/cli/output.ts',
        'error no-cycle: src/store/a.ts',
        'error outside-layers: src/lsp/text.ts → src/topic/parse.ts',
        'error tui-imports-cli: src/tui/app.ts → src/cli/output.ts',
        'error web-imports-cli: src/web/server.ts → src/cli/output.ts',
        'error process-outside-git: src/search/search.ts → child_process',
        'error service-imports-upward: src/service/brv.ts → src/cli/output.ts',
        'error views-imports-upward: src/views/page.ts → src/cli/output.ts',
        'error settings-imports-upward: src/settings/registry.ts → src/store/a.ts',
        'error store-imports-upward: src/store/policy.ts → src/settings/registry.ts',
        'error topic-is-pure: src/topic/parse.ts → src/base/errors.ts',
        'error topic-no-node: src/topic/parse.ts → fs',
        'error not-resolvable: src/vc/merge.ts → ./missing.js',
      ].sort(),
      out,
    );
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('the ref-name check fails on "refs/brv" in code outside store/, not in comments or in store/', async (t) => {
  const dir = await tree({
    'src/base/ref-names.ts': "export const BRANCH_PREFIX = 'refs/brv/heads/';\n",
    'src/vc/sync.ts':
      '// Fetches into refs/brv/remotes/<remote>/ (a comment may name refs).\n/** Also refs/brv/heads/* in JSDoc. */\nexport const prefix = (r: string) => `refs/brv/remotes/${r}/`;\n',
    'src/service/brv.ts': "export const SOURCE = /^refs\\/brv\\/sources\\/(.+)$/;\nexport const ok = 'refs/heads/main';\n",
    'src/cli/help.ts': "export const usage = 'stored on refs/brv/*';\n",
  });
  try {
    const run = await execa('node', [REF_NAMES, path.join(dir, 'src')], { cwd: dir, reject: false });
    t.is(run.exitCode, 1, run.stdout + run.stderr);
    const reported = run.stderr
      .split('\n')
      .slice(1)
      .map((line) => line.trim().split(':').slice(0, 2).join(':'));
    t.deepEqual(reported, ['src/cli/help.ts:1', 'src/service/brv.ts:1', 'src/vc/sync.ts:3']);

    await rm(path.join(dir, 'src/cli'), { recursive: true });
    await rm(path.join(dir, 'src/service'), { recursive: true });
    await rm(path.join(dir, 'src/vc'), { recursive: true });
    const clean = await execa('node', [REF_NAMES, path.join(dir, 'src')], { cwd: dir, reject: false });
    t.is(clean.exitCode, 0, clean.stdout + clean.stderr);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
});

test('library code reads no environment variable, working directory or home directory: front ends pass them in (Host)', async (t) => {
  const { readdir, readFile } = await import('node:fs/promises');
  const files = (await readdir(path.join(ROOT, 'src'), { recursive: true }))
    .filter((f) => f.endsWith('.ts') && !/^(cli|mcp)\//.test(f.split(path.sep).join('/')))
    .sort();
  t.true(files.length > 100, 'the source tree was found');
  const offenders: string[] = [];
  for (const file of files) {
    const text = (await readFile(path.join(ROOT, 'src', file), 'utf8')).replace(/^\s*(\/\/|\*|\/\*).*$/gm, '');
    for (const pattern of [/\bprocess\.env\b/, /\bprocess\.cwd\(/, /\bhomedir\(/, /\bprocess\.chdir\(/]) {
      if (pattern.test(text)) offenders.push(`${file}: ${pattern.source}`);
    }
  }
  t.deepEqual(offenders, []);
});
