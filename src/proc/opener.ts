import { childProcess } from '../git/child-process.js';
import type { GitProcesses } from '../git/processes.js';

/** Whether the platform's opener started, and which one. */
export interface OpenedUrl {
  opened: boolean;
  opener: string;
  /** Why it could not start (not installed, …). */
  problem?: string;
}

/** The program that opens a URL in the person's browser on each platform. */
function openerFor(platform: NodeJS.Platform, url: string): { command: string; args: string[] } {
  if (platform === 'darwin') return { command: 'open', args: [url] };
  if (platform === 'win32') return { command: 'cmd', args: ['/d', '/s', '/c', 'start', '""', url] };
  return { command: 'xdg-open', args: [url] };
}

/**
 * Opens `url` with the platform's opener (`xdg-open`, `open`, `start`), detached: the browser is
 * not ours to wait for or stop. Resolves once the opener started or failed to; never throws.
 */
export function openUrl(processes: GitProcesses, url: string, platform: NodeJS.Platform = process.platform): Promise<OpenedUrl> {
  const { command, args } = openerFor(platform, url);
  return new Promise((resolve) => {
    let child;
    try {
      child = childProcess().spawn(command, args, { detached: true, stdio: 'ignore', env: processes.environment(), windowsHide: true });
    } catch (error) {
      return resolve({ opened: false, opener: command, problem: (error as Error).message });
    }
    child.once('error', (error) => resolve({ opened: false, opener: command, problem: error.message }));
    child.once('spawn', () => {
      child.unref();
      resolve({ opened: true, opener: command });
    });
  });
}
