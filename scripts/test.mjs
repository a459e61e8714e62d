// `npm test`: builds (the real-process tests run dist/), then runs ava and the static checks
// (typecheck, knip, lint:layers) at the same time: they were a serial minute before ava on a
// 2-core machine. ava's output streams as it comes (.ci/run counts its lines); each check's output
// is held and printed after ava's, so no line of it lands among ava's. Fails if any of them fails.
// Arguments go to ava (`npm test -- --no-color`).
import { spawn } from 'node:child_process';

function run(command, args, { hold }) {
  return new Promise((resolve) => {
    const child = spawn(command, args, { stdio: hold ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let output = '';
    if (hold) {
      child.stdout.on('data', (chunk) => (output += chunk));
      child.stderr.on('data', (chunk) => (output += chunk));
    }
    child.on('close', (code, signal) => resolve({ name: [command, ...args].join(' '), code: code ?? (signal ? 1 : 0), output }));
  });
}

const build = await run('npm', ['run', 'build'], { hold: false });
if (build.code !== 0) process.exit(build.code);
const checks = ['typecheck', 'lint:unused', 'lint:layers'].map((script) => run('npm', ['run', '--silent', script], { hold: true }));
const ava = await run('npx', ['ava', ...process.argv.slice(2)], { hold: false });
let failed = ava.code !== 0;
for (const check of await Promise.all(checks)) {
  process.stdout.write(`\n# ${check.name}: ${check.code === 0 ? 'ok' : `failed (exit ${check.code})`}\n`);
  // (Trimmed first: a `# ` after the last newline would prefix the next line printed, .ci/run's count.)
  if (check.output.trim()) process.stdout.write(`${check.output.trimEnd().replace(/^/gm, '# ')}\n`);
  if (check.code !== 0) failed = true;
}
process.exit(failed ? 1 : 0);
