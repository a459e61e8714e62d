import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';

interface SearchOptions extends GlobalOptions {
  question: string[];
  limit: number;
  scope?: string;
  at?: string;
  kind?: string[];
  since?: string;
  until?: string;
}

export const searchCommand: CommandModule<GlobalOptions, SearchOptions> = {
  command: 'search <question..>',
  describe: 'Find topics: paths, titles, scores and excerpts (use read to see one)',
  builder: (y) =>
    y
      .positional('question', { type: 'string', array: true, demandOption: true, describe: 'Words to look for' })
      .option('limit', { type: 'number', default: 10, describe: 'How many results, 1–50' })
      .option('scope', { type: 'string', describe: 'Only topics under this folder, e.g. security/' })
      .option('kind', { type: 'string', array: true, describe: 'Only topics with one of these elements, e.g. --kind rule decision' })
      .option('since', { type: 'string', describe: 'Only topics dated (bv-timestamp) on or after YYYY-MM-DD' })
      .option('until', { type: 'string', describe: 'Only topics dated (bv-timestamp) on or before YYYY-MM-DD' })
      .option('at', { type: 'string', describe: 'As it was at a brv commit, branch (main~2), tag, or date (2026-11-01)' }),
  handler: (argv) => {
    // Load the search engine while git discovers the repository (the service imports it lazily).
    import('../../query/query-topics.js').catch(() => {});
    return withBrv('search', argv, async (brv) => {
      const result = await brv.search(argv.question.join(' '), { limit: argv.limit, scope: argv.scope, at: argv.at, kinds: argv.kind, since: argv.since, until: argv.until });
      if (argv.format === 'json') return printJson('search', true, result);
      if (result.results.length === 0) return printText('No topics match.');
      printText(
        result.results
          .map((r, i) => `${i + 1}. ${r.title} [${Math.round(r.score * 100)}%]\n   ${r.topicPath}\n   ${r.excerpt}`)
          .join('\n'),
      );
    });
  },
};
