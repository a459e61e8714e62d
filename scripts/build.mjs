// Builds the CLI. Measured on Node 20 (see docs/decisions/0002-startup-launcher-code-cache.md): loading ~400 small ESM files from
// node_modules cost ~0.5 s per command, so esbuild bundles them, with code splitting so that each
// command loads only the code it runs (no HTML parser for a query, no yargs for the agent commands).
// Node 20 keeps no compiled code between processes for ES modules (22's module.enableCompileCache
// does, but measured slower than this: docs/decisions/0100-node-floor.md), so the split chunks are then rewritten as CommonJS script bodies into dist/app/, and the
// executable, dist/cli/main.js (src/cli/launcher.ts), loads them itself through a V8 code cache.
// dist/package.json makes dist/ CommonJS, whose entry also starts ~15 ms sooner than an ES module's.
import { createHash } from 'node:crypto';
import { chmod, copyFile, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { inkWithoutTopLevelAwait } from './ink-plugin.mjs';

let build, transform;
try {
  ({ build, transform } = await import('esbuild'));
} catch {
  console.error('brv: the build needs its dev dependencies. In the brv checkout run "npm install" first, then "npm link".');
  process.exit(1);
}

const { version } = JSON.parse(await readFile('package.json', 'utf8'));
const target = { platform: 'node', target: 'node20' };

await rm('dist', { recursive: true, force: true });
const app = await build({
  ...target,
  entryPoints: { brv: 'src/cli/main.ts' },
  outdir: 'dist/app',
  bundle: true,
  splitting: true,
  format: 'esm',
  chunkNames: '[name]-[hash]',
  // The launcher hands every chunk its own file URL (yargs and package-root.ts ask where they are).
  define: { BRV_VERSION: JSON.stringify(version), 'import.meta.url': '__brvUrl' },
  alias: { 'string-width': './scripts/shims/string-width.mjs' },
  plugins: [inkWithoutTopLevelAwait],
  jsx: 'automatic',
  minify: true,
  sourcemap: false,
  logLevel: 'warning',
  write: false,
  metafile: process.argv.includes('--metafile'),
});

// ES module syntax to CommonJS, import() to a lazy require(): the launcher's loader runs it all.
const chunks = [];
for (const file of app.outputFiles) {
  const source = file.text.replace(/^#!.*\n/, '');
  const { code } = await transform(source, { ...target, format: 'cjs', supported: { 'dynamic-import': false }, minify: true });
  chunks.push({ name: path.basename(file.path), code });
}
chunks.sort((a, b) => a.name.localeCompare(b.name));
const hash = createHash('sha256');
for (const chunk of chunks) hash.update(`${chunk.name}\0${chunk.code}\0`);

const launcher = await build({
  ...target,
  entryPoints: ['src/cli/launcher.ts'],
  bundle: true,
  format: 'cjs',
  define: { BUILD_HASH: JSON.stringify(hash.digest('hex').slice(0, 16)) },
  banner: { js: '#!/usr/bin/env node' },
  minify: true,
  logLevel: 'warning',
  write: false,
});

await mkdir('dist/app', { recursive: true });
await mkdir('dist/cli', { recursive: true });
await writeFile('dist/package.json', `${JSON.stringify({ type: 'commonjs' })}\n`);
for (const chunk of chunks) await writeFile(path.join('dist/app', chunk.name), chunk.code);
await writeFile('dist/cli/main.js', launcher.outputFiles[0].text);
await chmod('dist/cli/main.js', 0o755);
if (app.metafile) await writeFile('dist/meta.json', JSON.stringify(app.metafile));

// The browser client of `brv webui` (src/web/client, Preact): one script and one stylesheet, minified, beside an
// index.html that only references them (the server's Content-Security-Policy allows no inline script or style).
await build({
  entryPoints: [
    { in: 'src/web/client/main.tsx', out: 'app' },
    { in: 'src/web/client/app.css', out: 'app' },
  ],
  outdir: 'dist/web/assets',
  bundle: true,
  format: 'esm',
  platform: 'browser',
  target: ['es2020', 'chrome100', 'firefox100', 'safari15'],
  jsx: 'automatic',
  jsxImportSource: 'preact',
  tsconfig: 'tsconfig.client.json',
  minify: true,
  sourcemap: false,
  legalComments: 'none',
  logLevel: 'warning',
});
await copyFile('src/web/client/index.html', 'dist/web/index.html');

// man brv, man git-brv (and so `git brv --help`), from the built CLI's help texts.
const { writeManPages } = await import('./man-pages.mjs');
await writeManPages(version, build);
