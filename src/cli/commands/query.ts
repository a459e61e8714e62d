import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { retrievalOptions, retrievalRequest, type RetrievalOptions } from '../retrieval-options.js';
import { printJson, printText } from '../output.js';
import { queryText } from '../../views/query.js';
import { maintainInBackground } from '../background-maintenance.js';
import { hybridNotes } from '../../views/hybrid.js';

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
        const result = await brv.retrieval.query({ question, ...options });
        if (argv.format === 'json') printJson('query', true, result);
        else printText(queryText(result));
        for (const line of hybridNotes(result.metadata.hybrid, result.usage, argv.format === 'json' ? 'json' : 'text'))
          process.stderr.write(`${line}\n`);
        await maintainInBackground(brv, result.metadata.index.compaction, argv.C);
      },
      // Load the search engine and index reader while git discovers the repository (the service
      // imports them lazily).
      () => import('../../service/service.js').then((m) => m.preloadRetrieval()),
    ),
};
