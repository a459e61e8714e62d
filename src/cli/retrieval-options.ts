import type { Argv } from 'yargs';
import type { GlobalOptions } from './context.js';

/** The options `query` and `search` share: what to look for and which topics may answer. */
export interface RetrievalOptions extends GlobalOptions {
  question: string[];
  limit: number;
  scope?: string;
  at?: string;
  kind?: string[];
  since?: string;
  until?: string;
}

export function retrievalOptions(y: Argv<GlobalOptions>, questionHelp: string): Argv<RetrievalOptions> {
  return y
    .positional('question', { type: 'string', array: true, demandOption: true, describe: questionHelp })
    .option('limit', { type: 'number', default: 10, describe: 'How many topics, 1–50' })
    .option('scope', { type: 'string', describe: 'Only topics under this folder, e.g. security/' })
    .option('kind', { type: 'string', array: true, describe: 'Only topics with one of these elements, e.g. --kind rule decision' })
    .option('since', { type: 'string', describe: 'Only topics dated (bv-timestamp) on or after YYYY-MM-DD' })
    .option('until', { type: 'string', describe: 'Only topics dated (bv-timestamp) on or before YYYY-MM-DD' })
    .option('at', {
      type: 'string',
      describe: 'As it was at a brv commit, branch (main~2), tag, or date (2026-11-01)',
    }) as unknown as Argv<RetrievalOptions>;
}

export function retrievalRequest(argv: RetrievalOptions) {
  return {
    question: argv.question.join(' '),
    options: { limit: argv.limit, scope: argv.scope, at: argv.at, kinds: argv.kind, since: argv.since, until: argv.until },
  };
}
