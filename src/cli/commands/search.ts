import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { retrievalOptions, retrievalRequest, type RetrievalOptions } from '../retrieval-options.js';
import { note, printJson, printText } from '../output.js';
import { searchText } from '../../views/query.js';
import { maintainInBackground } from '../background-maintenance.js';
import { hybridNotes } from '../../views/hybrid.js';

export const searchCommand: CommandModule<GlobalOptions, RetrievalOptions> = {
  command: 'search <question..>',
  describe: 'Find topics: paths, titles, scores and excerpts (use read to see one)',
  builder: (y) => retrievalOptions(y, 'Words to look for'),
  handler: (argv) =>
    withBrv(
      'search',
      argv,
      async (brv) => {
        const { question, options } = retrievalRequest(argv);
        const result = await brv.retrieval.search({ question, ...options });
        if (argv.format === 'json') printJson('search', true, result);
        else printText(searchText(result));
        for (const line of hybridNotes(result.hybrid, result.usage, argv.format === 'json' ? 'json' : 'text')) note(line);
        await maintainInBackground(brv, result.index.compaction, argv.C);
      },
      // Load the search engine and index reader while git discovers the repository (the service
      // imports them lazily).
      () => import('../../service/service.js').then((m) => m.preloadRetrieval()),
    ),
};
