import { readFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * ink (the TUI) without top-level await, which the CommonJS chunks of build.mjs cannot hold: `yoga-layout`
 * becomes scripts/shims/yoga-layout.mjs (see there), and ink's reconciler loses the two awaits it
 * runs only when DEV=true, for React's devtools (a development aid brv does not ship).
 */
export const inkWithoutTopLevelAwait = {
  name: 'ink-without-top-level-await',
  setup(b) {
    b.onResolve({ filter: /^yoga-layout$/ }, () => ({ path: path.resolve('scripts/shims/yoga-layout.mjs') }));
    b.onLoad({ filter: /[\\/]ink[\\/]build[\\/]reconciler\.js$/ }, async (args) => {
      let source = await readFile(args.path, 'utf8');
      // Both run only when DEV=true: connecting React's devtools, and reading ink's package.json for them.
      for (const [devOnly, replacement] of [
        ["await import('./devtools.js');", 'void 0;'],
        ['? await loadPackageJson()', '? { name: undefined, version: undefined }'],
      ]) {
        if (!source.includes(devOnly)) throw new Error(`ink changed: ${args.path} no longer has ${devOnly} (see scripts/ink-plugin.mjs)`);
        source = source.replace(devOnly, replacement);
      }
      return { contents: source, loader: 'js' };
    });
  },
};
