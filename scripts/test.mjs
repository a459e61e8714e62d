// `npm test`: builds (the real-process tests run dist/; not again when dist/ is newer than all it is
// built from, as after `npm ci`, whose prepare script has just built it), then runs ava and the static checks
// (typecheck, knip, lint:layers) at the same time: they were a serial minute before ava on a
// 2-core machine. ava's output streams as it comes (.ci/run counts its lines); each check's output
// is held and printed after ava's, so no line of it lands among ava's. Fails if any of them fails.
// ava runs in .test-build/, the suite compiled to JavaScript (scripts/build-tests.mjs says why).
// Arguments go to ava (`npm test -- --no-color`, `npm test -- test/cli/read-ls.test.ts`).
import { spawn } from 'node:child_process';
import { readdir, stat } from 'node:fs/promises';
import path from 'node:path';

function run(command, args, { hold, cwd }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, stdio: hold ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (hold) {
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
    }
    child.on('close', (code, signal) => resolve({ name: [command, ...args].join(' '), code: code ?? (signal ? 1 : 0), output }));
  });
}

/** Modification times of `entry` and, for a folder, of everything under it (none when it is missing). */
async function mtimes(entry) {
  const info = await stat(entry).catch(() => undefined);
  if (!info) return [];
  if (!info.isDirectory()) return [info.mtimeMs];
  const names = await readdir(entry, { recursive: true });
  return [info.mtimeMs, ...(await Promise.all(names.map((name) => stat(path.join(entry, name)).then((s) => s.mtimeMs))))];
}

// The man pages are written last: their oldest time is when the build finished.
const built = await mtimes('dist/man/man1');
const sources = (
  await Promise.all(
    ['src', 'scripts', 'package.json', 'package-lock.json', 'tsconfig.json', 'tsconfig.client.json', 'tsconfig.build.json'].map(mtimes),
  )
).flat();
if (built.length > 1 && Math.min(...built) > Math.max(...sources)) {
  process.stdout.write('dist/ is newer than its sources: not built again\n');
} else {
  const build = await run('npm', ['run', 'build'], { hold: false });
  if (build.code !== 0) process.exit(build.code);
}
const compile = await run('node', ['scripts/build-tests.mjs'], { hold: false });
if (compile.code !== 0) process.exit(compile.code);
const checks = ['typecheck', 'lint:unused', 'lint:layers'].map((script) => run('npm', ['run', '--silent', script], { hold: true }));
const avaArgs = process.argv.slice(2).map((arg) => (arg.startsWith('-') ? arg : arg.replace(/\.tsx?$/, '.js')));
const ava = await run('npx', ['ava', ...avaArgs], { hold: false, cwd: '.test-build' });
let failed = ava.code !== 0;
for (const check of await Promise.all(checks)) {
  process.stdout.write(`\n# ${check.name}: ${check.code === 0 ? 'ok' : `failed (exit ${check.code})`}\n`);
  // (Trimmed first: a `# ` after the last newline would prefix the next line printed, .ci/run's count.)
  if (check.output.trim()) process.stdout.write(`${check.output.trimEnd().replace(/^/gm, '# ')}\n`);
  if (check.code !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
