// Compiles src/, test/, bench/ and scripts/*.ts to plain JavaScript in .test-build/, a mirror of the
// repository that `npm test` runs ava in. Under `--import=tsx` every test file paid ~0.5 s of CPU for
// the loader (its hook thread and a transform of each module it imports); ~300 files on a 2-core CI
// machine made that over a minute of wall time (bench/README.md, "Test suite"). The mirror's other
// entries are symlinks to the real ones, so a test that finds the repository root from its own
// location, reads a fixture or a source file, or spawns `dist/` sees what it would see in place.
// Developers' `npx ava test/…` still runs the TypeScript directly.
import { build } from 'esbuild';
import { mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '..');
const out = path.join(root, '.test-build');
const compiled = ['src', 'test', 'bench', 'scripts'];
const skippedAtRoot = new Set(['.git', '.test-build', 'package.json', ...compiled]);

await rm(out, { recursive: true, force: true });
await mkdir(out);

const entryPoints = [];
/** Mirrors `dir`: TypeScript is compiled (and linked, for tests that read it), everything else linked. */
async function mirror(dir) {
  await mkdir(path.join(out, dir), { recursive: true });
  for (const entry of await readdir(path.join(root, dir), { withFileTypes: true })) {
    const relative = path.join(dir, entry.name);
    if (entry.isDirectory()) {
      await mirror(relative);
      continue;
    }
    await symlink(path.join(root, relative), path.join(out, relative));
    if (!entry.isFile()) continue;
    if (/\.tsx?$/.test(entry.name) && !entry.name.endsWith('.d.ts')) entryPoints.push(path.join(root, relative));
  }
}
for (const dir of compiled) await mirror(dir);

for (const entry of await readdir(root)) {
  if (!skippedAtRoot.has(entry)) await symlink(path.join(root, entry), path.join(out, entry));
}
// ava reads its configuration from one place: the mirror's package.json has none, its config file does.
const pkg = JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8'));
const avaConfig = { ...pkg.ava, extensions: ['js'], nodeArguments: [], files: ['test/**/*.test.js'] };
delete pkg.ava;
await writeFile(path.join(out, 'package.json'), `${JSON.stringify(pkg, null, 2)}\n`);
await writeFile(path.join(out, 'ava.config.mjs'), `export default ${JSON.stringify(avaConfig, null, 2)};\n`);

// Every import stays as written, but for packages whose ES module build Node itself cannot load
// (extensionless relative imports inside them), which are bundled into their one importer.
const bundled = new Set(['jsonc-parser/lib/esm/main.js']);
const keepImports = {
  name: 'keep-imports',
  setup(builder) {
    builder.onResolve({ filter: /.*/ }, (args) =>
      args.kind === 'entry-point' || bundled.has(args.path) || args.importer.includes('/node_modules/')
        ? undefined
        : { path: args.path, external: true },
    );
  },
};

await build({
  entryPoints,
  bundle: true,
  plugins: [keepImports],
  outdir: out,
  outbase: root,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  jsx: 'automatic',
  logLevel: 'warning',
});
