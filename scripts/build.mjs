// Bundles the CLI with code splitting. Measured on Node 20 (see bench/README.md): loading ~400 small
// ESM files from node_modules cost ~0.5 s per command; bundled chunks load in a fraction of that, and
// splitting keeps HTML parsing code off the path of commands that never parse HTML.
import { chmod, rm } from 'node:fs/promises';

let build;
try {
  ({ build } = await import('esbuild'));
} catch {
  console.error('brv: the build needs its dev dependencies. In the brv checkout run "npm install" first, then "npm link".');
  process.exit(1);
}

await rm('dist', { recursive: true, force: true });
await build({
  entryPoints: { 'cli/main': 'src/cli/main.ts' },
  outdir: 'dist',
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  chunkNames: 'chunks/[name]-[hash]',
  // Some dependencies are CommonJS and call require(); give the ESM bundle one.
  banner: { js: "import { createRequire as __brvCreateRequire } from 'node:module'; const require = __brvCreateRequire(import.meta.url);" },
  alias: { 'string-width': './scripts/shims/string-width.mjs' },
  minify: true,
  sourcemap: false,
  logLevel: 'warning',
  metafile: process.argv.includes('--metafile'),
});
await chmod('dist/cli/main.js', 0o755);
