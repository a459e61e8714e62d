import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { embeddingsText, maintenanceText } from '../../views/maintenance.js';

interface MaintenanceOptions extends GlobalOptions {
  lockToken?: string;
}

/**
 * `brv maintenance`: compacts the search indexes that are due. A query never compacts on its own
 * path: when it leaves an index due, the CLI starts this command in the background after answering
 * (`--lock-token`: the lock that query took for it), unless BRV_NO_AUTO_MAINTENANCE is set.
 */
export const maintenanceCommand: CommandModule<GlobalOptions, MaintenanceOptions> = {
  command: 'maintenance',
  describe: 'Compact the search indexes that are due and embed new topics for hybrid retrieval (queries start this in the background)',
  builder: (y) =>
    y.option('lock-token', {
      type: 'string',
      hidden: true,
      describe: 'The maintenance lock a query took for this background run',
    }) as never,
  handler: (argv) =>
    withBrv('maintenance', argv, async (brv) => {
      const result = await brv.retrieval.compactIndex(argv.lockToken === undefined ? {} : { lockToken: argv.lockToken });
      // With an embedding model connected: the topic embeddings hybrid queries need, computed ahead.
      const embeddings = await brv.retrieval.embedTopics();
      if (argv.format === 'json') return printJson('maintenance', true, { ...result, embeddings });
      printText(maintenanceText(result));
      if (embeddings.status !== 'off') printText(embeddingsText(embeddings));
    }),
};
