import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { embeddingsText, maintenanceText } from '../../views/maintenance.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface MaintenanceOptions extends GlobalOptions {
  lockToken?: string;
}

/**
 * `brv maintenance`: compacts the search indexes that are due. A query never compacts on its own
 * path: when it leaves an index due, the CLI starts this command in the background after answering
 * (`--lock-token`: the lock that query took for it), unless BRV_NO_AUTO_MAINTENANCE is set.
 */
export const maintenanceCommand = tableCommand<MaintenanceOptions>(declaration('maintenance'), {
  handler: (argv) =>
    withBrv('maintenance', argv, async (brv) => {
      const result = await brv.retrieval.compactIndex(argv.lockToken === undefined ? {} : { lockToken: argv.lockToken });
      // With an embedding model connected: the topic embeddings hybrid queries need, computed ahead.
      const embeddings = await brv.retrieval.embedTopics();
      if (argv.format === 'json') return printJson('maintenance', true, { ...result, embeddings });
      printText(maintenanceText(result));
      if (embeddings.status !== 'off') printText(embeddingsText(embeddings));
    }),
});
