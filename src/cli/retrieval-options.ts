import type { Argv } from 'yargs';
import type { GlobalOptions } from './context.js';
import { checkNumbers, type OptionTable } from './options.js';
import { startProgress } from './progress.js';
import { backgroundMaintenance } from './background-maintenance.js';

/** The options `query` and `search` share: what to look for and which topics may answer. */
export interface RetrievalOptions extends GlobalOptions {
  question: string[];
  limit: number;
  scope?: string;
  at?: string;
  kind?: string[];
  since?: string;
  until?: string;
  lexical?: boolean;
  hybrid?: boolean;
}

export const RETRIEVAL_OPTIONS = {
  limit: { type: 'number', default: 10, min: 1, max: 50, describe: 'How many topics, 1–50' },
  scope: { type: 'string', describe: 'Only topics under this folder, e.g. security/' },
  kind: { type: 'string', array: true, describe: 'Only topics with one of these elements, e.g. --kind rule decision' },
  since: { type: 'string', describe: 'Only topics dated (bv-timestamp) on or after YYYY-MM-DD' },
  until: { type: 'string', describe: 'Only topics dated (bv-timestamp) on or before YYYY-MM-DD' },
  at: { type: 'string', describe: 'As it was at a brv commit, branch (main~2), tag, or date (2026-11-01)' },
  lexical: { type: 'boolean', describe: 'Lexical ranking only, even with an embedding model connected and retrieval.hybrid on' },
  hybrid: {
    type: 'boolean',
    describe:
      'Fuse the lexical ranking with embedding similarity for this query (needs an embedding model; default: the retrieval.hybrid setting)',
  },
} as const satisfies OptionTable;

export function retrievalOptions(y: Argv<GlobalOptions>, questionHelp: string): Argv<RetrievalOptions> {
  return y
    .positional('question', { type: 'string', array: true, demandOption: true, describe: questionHelp })
    .options(RETRIEVAL_OPTIONS)
    .check(checkNumbers(RETRIEVAL_OPTIONS) as never) as unknown as Argv<RetrievalOptions>;
}

export function retrievalRequest(argv: RetrievalOptions) {
  return {
    question: argv.question.join(' '),
    options: {
      limit: argv.limit,
      scope: argv.scope,
      at: argv.at,
      kinds: argv.kind,
      since: argv.since,
      until: argv.until,
      // Building the search index of many new topics takes a while: progress on a terminal's stderr.
      onProgress: startProgress('Indexing topics', argv).onProgress,
      // The first hybrid query embeds every topic: progress too.
      onEmbedProgress: startProgress('Embedding topics', argv).onProgress,
      ...(argv.lexical ? { hybrid: false } : argv.hybrid === undefined ? {} : { hybrid: argv.hybrid }),
      // A tree with no index: answered from a scan, its index written by the background maintenance.
      scan: backgroundMaintenance(),
    },
  };
}
