import { existsSync, readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { BrvError } from '../errors.js';

/** The git hooks brv installs, in the order it reports them. */
export const HOOK_NAMES = ['post-merge', 'post-checkout', 'pre-commit'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

export function isHookName(name: string): name is HookName {
  return (HOOK_NAMES as readonly string[]).includes(name);
}

let packageRoot: string | undefined;

/**
 * The brv package directory (the one whose package.json is named "brv"). Found by walking up from
 * this module, so it works from src/ under tsx and from the esbuild bundle in dist/cli or dist/chunks.
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
    if (parent === dir) throw new BrvError('hooks-missing', 'Cannot find the brv package directory (with hooks/). Reinstall brv.');
    dir = parent;
  }
}

/**
 * The shell block body brv installs for a hook, from `hooks/<name>` in the package. Read as latin1
 * (one char per byte) like the hook files it is written into; the shipped bodies are ASCII.
 */
export async function hookBody(name: HookName): Promise<string> {
  const file = path.join(brvPackageRoot(), 'hooks', name);
  try {
    return await readFile(file, 'latin1');
  } catch (error) {
    throw new BrvError('hooks-missing', `Cannot read brv's hook script ${file} (${(error as NodeJS.ErrnoException).code}). Reinstall brv.`);
  }
}
