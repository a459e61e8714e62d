import type { PublishResult } from '../service/sharing.js';
import { plural } from './format.js';

/** `brv publish`'s text: where the pages went, what changed, and how to show a branch. */
export function publishText(result: PublishResult): string {
  const where = result.target.to === 'dir' ? result.target.name : `branch ${result.target.name}`;
  const from = result.from.slice(0, 12);
  if (!result.changed) {
    const tip = result.commit ? ` (${result.commit.slice(0, 12)})` : '';
    return `${where}${tip} already shows the ${plural(result.topics, 'topic')} of ${from}; nothing was written.`;
  }
  const lines = [
    `Published ${plural(result.topics, 'topic')} of ${from} to ${where}${result.commit ? ` as ${result.commit.slice(0, 12)}` : ''}: ` +
      `${plural(result.written.length, 'file')} written, ${result.removed.length} removed; ${result.rendered} rendered, ${result.reused} unchanged.`,
  ];
  if (result.target.to === 'branch') lines.push(`Show it on the hosting site with: git push <remote> ${result.target.name}`);
  return lines.join('\n');
}
