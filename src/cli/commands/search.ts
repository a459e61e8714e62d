import { withBrv } from '../context.js';
import { retrievalRequest, type RetrievalOptions } from '../retrieval-options.js';
import { note, printJson, printText } from '../output.js';
import { searchText } from '../../views/query.js';
import { maintainInBackground } from '../background-maintenance.js';
import { hybridNotes } from '../../views/hybrid.js';
import { tableCommand } from '../table-yargs.js';
import { SEARCH } from '../../views/agent-commands.js';

export const searchCommand = tableCommand<RetrievalOptions>(SEARCH, {
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
});
