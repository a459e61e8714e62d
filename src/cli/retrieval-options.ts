import type { GlobalOptions } from './context.js';
import { startProgress } from './progress.js';
import { backgroundMaintenance } from './background-maintenance.js';

/** The arguments `query` and `search` share (declared in the command table): what to look for and which topics may answer. */
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
