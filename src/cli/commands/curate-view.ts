import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText, shortOid } from '../output.js';

interface ViewOptions extends GlobalOptions {
  limit: number;
}

export const curateViewCommand: CommandModule<GlobalOptions, ViewOptions> = {
  command: 'view',
  describe: 'Show the curate history of the current brv branch (read from its commits and trailers)',
  builder: (y) => y.option('limit', { type: 'number', default: 10, describe: 'How many entries, newest first (1–1000)' }),
  handler: (argv) =>
    withBrv('curate view', argv, async (brv) => {
      const limit = Math.max(1, Math.min(1000, Math.floor(argv.limit)));
      const entries = await brv.history(limit);
      if (argv.format === 'json') return printJson('curate view', true, { branch: brv.branch, entries });
      if (entries.length === 0) return printText(`No history yet on brv branch ${brv.branch}.`);
      const lines: string[] = [];
      for (const entry of entries) {
        const tags = [entry.meta.type, entry.meta.impact && `impact ${entry.meta.impact}`].filter(Boolean).join(', ');
        lines.push(`${shortOid(entry.commit)}  ${entry.time}  ${entry.subject}${tags ? `  [${tags}]` : ''}`);
        if (entry.meta.reason) lines.push(`            reason: ${entry.meta.reason}`);
        for (const change of entry.changes) if (!change.path.startsWith('.brv/')) lines.push(`            ${change.status} ${change.path}`);
      }
      printText(lines.join('\n'));
    }),
};
