import { markdownInline } from '../../topic/inline.js';
import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { retrievalOptions, retrievalRequest, type RetrievalOptions } from '../retrieval-options.js';
import { originLabel, printJson, printText } from '../output.js';

export const queryCommand: CommandModule<GlobalOptions, RetrievalOptions> = {
  command: 'query <question..>',
  describe: 'Ranked topics for a question, rendered as markdown for an agent to read',
  builder: (y) =>
    retrievalOptions(y, 'What you want to know (quotes optional)').example(
      '$0 query "how are JWTs signed" --format json',
      'What an agent runs before it works',
    ),
  handler: (argv) =>
    withBrv(
      'query',
      argv,
      async (brv) => {
        const { question, options } = retrievalRequest(argv);
        const result = await brv.query(question, options);
        if (argv.format === 'json') return printJson('query', true, result);
        if (result.matchedDocs.length === 0)
          return printText('No topics match. Try other words, or curate what you learn with brv curate.');
        const blocks = result.matchedDocs.map(
          // The header line names the topic, so the rendered title line is not repeated under it.
          (doc, i) =>
            `## ${i + 1}. ${markdownInline(doc.title, 'heading')} — ${originLabel(doc)}${markdownInline(doc.topicPath)} (score ${doc.score.toFixed(2)}; matched ${doc.matched.terms.join(', ')})\n\n${doc.rendered_md.replace(/^# .*\n+/, '').trim()}`,
        );
        printText(
          `${blocks.join('\n\n---\n\n')}\n\n(${result.matchedDocs.length} of ${result.metadata.totalFound} matching topics, ${result.metadata.durationMs} ms)`,
        );
      },
      // Load the search engine and index reader while git discovers the repository (the service
      // imports them lazily).
      () => Promise.all([import('../../query/query-topics.js'), import('../../query/tree-index.js')]),
    ),
};
