import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';

interface QueryOptions extends GlobalOptions {
  question: string[];
  limit: number;
  scope?: string;
  at?: string;
  kind?: string[];
  since?: string;
  until?: string;
}

export const queryCommand: CommandModule<GlobalOptions, QueryOptions> = {
  command: 'query <question..>',
  describe: 'Ranked topics for a question, rendered as markdown for an agent to read',
  builder: (y) =>
    y
      .positional('question', { type: 'string', array: true, demandOption: true, describe: 'What you want to know (quotes optional)' })
      .option('limit', { type: 'number', default: 10, describe: 'How many topics, 1–50' })
      .option('scope', { type: 'string', describe: 'Only topics under this folder, e.g. security/' })
      .option('kind', { type: 'string', array: true, describe: 'Only topics with one of these elements, e.g. --kind rule decision' })
      .option('since', { type: 'string', describe: 'Only topics dated (bv-timestamp) on or after YYYY-MM-DD' })
      .option('until', { type: 'string', describe: 'Only topics dated (bv-timestamp) on or before YYYY-MM-DD' })
      .option('at', { type: 'string', describe: 'As it was at a brv commit, branch (main~2), tag, or date (2026-11-01)' })
      .example('$0 query "how are JWTs signed" --format json', 'What an agent runs before it works'),
  handler: (argv) => {
    // Load the search engine while git discovers the repository (the service imports it lazily).
    import('../../query/query-topics.js').catch(() => {});
    return withBrv('query', argv, async (brv) => {
      const result = await brv.query(argv.question.join(' '), { limit: argv.limit, scope: argv.scope, at: argv.at, kinds: argv.kind, since: argv.since, until: argv.until });
      if (argv.format === 'json') return printJson('query', true, result);
      if (result.matchedDocs.length === 0) return printText('No topics match. Try other words, or curate what you learn with brv curate.');
      const blocks = result.matchedDocs.map(
        // The header line names the topic, so the rendered title line is not repeated under it.
        (doc, i) => `## ${i + 1}. ${doc.title} — ${doc.topicPath} (score ${doc.score.toFixed(2)}; matched ${doc.matched.terms.join(', ')})\n\n${doc.rendered_md.replace(/^# .*\n+/, '').trim()}`,
      );
      printText(`${blocks.join('\n\n---\n\n')}\n\n(${result.matchedDocs.length} of ${result.metadata.totalFound} matching topics, ${result.metadata.durationMs} ms)`);
    });
  },
};
