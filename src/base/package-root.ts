import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrvError } from './errors.js';

let packageRoot: string | undefined;

/**
 * The brv package directory (the one whose package.json is named "brv"), where `hooks/` and
 * `templates/` ship. Found by walking up from this module, so it works from src/ under tsx and from
 * the esbuild bundle in dist/cli or dist/chunks.
 */
export function brvPackageRoot(): string {
  if (packageRoot) return packageRoot;
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (;;) {
    const manifest = path.join(dir, 'package.json');
    if (existsSync(manifest)) {
      try {
        if ((JSON.parse(readFileSync(manifest, 'utf8')) as { name?: unknown }).name === 'brv') return (packageRoot = dir);
      } catch {
        // an unreadable package.json on the way up is not ours
      }
    }
    const parent = path.dirname(dir);
    if (parent === dir)
      throw new BrvError('package-files-missing', 'Cannot find the brv package directory (hooks/, templates/). Reinstall brv.');
    dir = parent;
  }
}

/** brv's own version, from its package.json. */
export function brvVersion(): string {
  try {
    return String(
      (JSON.parse(readFileSync(path.join(brvPackageRoot(), 'package.json'), 'utf8')) as { version?: unknown }).version ?? '0.0.0',
    );
  } catch {
    return '0.0.0';
  }
}
