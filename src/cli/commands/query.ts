import { withBrv } from '../context.js';
import { retrievalRequest, type RetrievalOptions } from '../retrieval-options.js';
import { EXIT_FAILURE, note, printJson, printText } from '../output.js';
import { errorText } from '../../views/errors.js';
import { queryText } from '../../views/query.js';
import { maintainInBackground } from '../background-maintenance.js';
import { cliRun, setExitCode } from '../io.js';
import { hybridNotes } from '../../views/hybrid.js';
import type { Brv } from '../../service/brv.js';
import { tableCommand } from '../table-yargs.js';
import { QUERY } from '../../views/agent-commands.js';

interface QueryOptions extends RetrievalOptions {
  answer?: boolean;
}

export const queryCommand = tableCommand<QueryOptions>(QUERY, {
  handler: (argv) =>
    withBrv(
      'query',
      argv,
      async (brv) => {
        if (argv.answer) return answer(brv, argv);
        const { question, options } = retrievalRequest(argv);
        const result = await brv.retrieval.query({ question, ...options });
        if (argv.format === 'json') printJson('query', true, result);
        else printText(queryText(result));
        for (const line of hybridNotes(result.metadata.hybrid, result.usage, argv.format === 'json' ? 'json' : 'text')) note(line);
        await maintainInBackground(brv, result.metadata.index.compaction, argv.C);
      },
      // Load the search engine and index reader while git discovers the repository (the service
      // imports them lazily).
      () => import('../../service/service.js').then((m) => m.preloadRetrieval()),
    ),
});

/** `brv query --answer`: the model's checked answer; progress while it streams, the usage line after, on stderr. */
async function answer(brv: Brv, argv: QueryOptions): Promise<void> {
  const { question, options } = retrievalRequest(argv);
  const [{ startProgress }, { answerText }, { usageLine }] = await Promise.all([
    import('../progress.js'),
    import('../../views/answer.js'),
    import('../../views/usage.js'),
  ]);
  const progress = startProgress('Answering: characters received', argv);
  // Without --limit the answer reads its own default number of topics, not query's 10.
  const args = cliRun().args;
  const words = args.slice(0, args.includes('--') ? args.indexOf('--') : undefined);
  const limit = words.some((a) => a === '--limit' || a.startsWith('--limit=')) ? options.limit : undefined;
  let result;
  try {
    result = await brv.retrieval.answer({ question, ...options, limit, onAnswerText: (received) => progress.onProgress(received) });
  } finally {
    progress.finish();
  }
  const { query, usage, ...rest } = result;
  if (rest.modelError) {
    // No answer, but what retrieval found (it needs no model) is printed as brv query prints it, and
    // the model's error beside it, typed: exit 1, as for any command that could not do what was asked.
    const { kind, message } = rest.modelError;
    if (argv.format === 'json') printJson('query', false, { ...query, answer: null, error: { kind, message }, usage });
    else {
      printText(queryText(query));
      note(errorText(kind, `No answer: ${message}`));
      if (usage.requests > 0) note(usageLine(usage));
    }
    setExitCode(EXIT_FAILURE);
    return maintainInBackground(brv, query.metadata.index.compaction, argv.C);
  }
  if (argv.format === 'json') {
    printJson('query', true, {
      ...query,
      answer: {
        text: rest.answer,
        citations: rest.citations,
        rejectedCitations: rest.rejectedCitations,
        notInKnowledge: rest.notInKnowledge,
        topics: rest.topics,
      },
      usage,
    });
  } else {
    printText(answerText(result));
    note(usageLine(usage));
  }
  await maintainInBackground(brv, query.metadata.index.compaction, argv.C);
}
