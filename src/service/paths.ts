import path from 'node:path';
import { BrvError } from '../base/errors.js';

/**
 * A directory a request names. The service has no working directory of its own to resolve a
 * relative path against (that is process state): front ends resolve what the user typed.
 */
export function absolute(directory: string, what = 'The directory'): string {
  if (!path.isAbsolute(directory)) throw new BrvError('relative-path', `${what} must be an absolute path, not "${directory}".`);
  return directory;
}
