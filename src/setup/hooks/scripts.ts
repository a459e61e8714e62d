import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../../base/errors.js';
import { brvPackageRoot } from '../../base/package-root.js';

/** The git hooks brv installs, in the order it reports them. */
export const HOOK_NAMES = ['post-merge', 'post-checkout', 'pre-commit'] as const;
export type HookName = (typeof HOOK_NAMES)[number];

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
