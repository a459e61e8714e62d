// The REPL's slash commands: what each accepts (for parsing and Tab completion) and what it does,
// through the service, answered as an Outcome the App shows. Text output comes from src/views,
// the same words as the CLI's.
import type { Brv } from '../service/brv.js';
import type { Actor } from '../service/host.js';
import type { BrvService } from '../service/service.js';
import type { SyncProgress } from '../service/sharing.js';
import { connectorStatusText } from '../views/connectors.js';
import { curateAutoNotes, curateAutoProgressLine, curateText } from '../views/curate.js';
import { doctorText } from '../views/doctor.js';
import { usageLine } from '../views/usage.js';
import { queryText } from '../views/query.js';
import { answerMarkdown } from '../views/answer.js';
import { dreamText } from '../views/dream.js';
import { isBrvError } from '../base/errors.js';
import { DREAM_KINDS, type DreamKind } from '../service/knowledge.js';
import { knowledgeNoticeText } from '../views/arrival.js';
import { settingSetText, settingsText } from '../views/settings.js';
import { sourcesText } from '../views/worktree.js';
import { listText, removeText } from '../views/topics.js';
import {
  branchesText,
  checkoutText,
  diffText,
  logText,
  mergeText,
  syncStepText,
  syncText,
  syncTransferText,
  vcStatusText,
} from '../views/vc.js';
import { fromTable, type CommandSpec, type ParsedCommand } from './command-line.js';

/** One search hit, as the results list shows it. */
export interface ResultItem {
  path: string;
  title: string;
  excerpt: string;
  score: number;
  terms: string[];
  /** The knowledge source it comes from (read-only), if not this repository. */
  source?: string;
}

export type Outcome =
  /** A page of output; `message` is said under it (the cost of a model call, a model's error beside what was found). */
  | { type: 'text'; title: string; text: string; markdown?: boolean; message?: { tone: 'error' | 'info'; text: string } }
  | { type: 'results'; title: string; question: string; items: ResultItem[] }
  | { type: 'topic'; path: string; source?: string; note?: string }
  | { type: 'review'; id?: string }
  | { type: 'edit'; path: string }
  | { type: 'curate'; path?: string }
  | { type: 'note'; text: string }
  /** A question answered y or N before anything is done (`/rm`): `proceed` on y, `declined` said otherwise. */
  | { type: 'confirm'; question: string; doing: string; proceed: () => Promise<Outcome>; declined: string }
  | { type: 'help' }
  | { type: 'exit' };

export interface CommandContext {
  service: BrvService;
  brv(): Promise<Brv>;
  actor: Actor;
  /** The directory the REPL was started in (connectors are looked up from it). */
  cwd: string;
  /** What long work is doing now (undefined: done). */
  progress(text: string | undefined): void;
  /** Aborted when the person stops the work (Ctrl-C): work that can be cancelled stops. */
  signal?: AbortSignal;
}

export const COMMANDS: readonly CommandSpec[] = [
  {
    name: 'query',
    summary: 'Ask a question: the matching topics, rendered (--answer: in words, as /ask)',
    usage: '/query <question> [--answer]',
    ...fromTable(['query'], ['answer']),
    repeat: true,
  },
  {
    name: 'ask',
    summary:
      'Answer a question in words from the top topics with the connected model, citing them (brv query --answer); if the model fails, the topics found and why',
    usage: '/ask <question>',
    ...fromTable(['query']),
    repeat: true,
  },
  {
    name: 'search',
    summary: 'Ranked topics for a question, as a list to open',
    usage: '/search <question> [--scope <folder>] [--limit N]',
    ...fromTable(['search'], ['scope', 'limit']),
    repeat: true,
  },
  {
    name: 'read',
    summary: 'Open a topic (of a knowledge source with --source)',
    usage: '/read <topic> [--source <alias>]',
    ...fromTable(['read']),
    options: { '--source': 'source' },
  },
  { name: 'ls', summary: 'List topics (under a folder)', usage: '/ls [folder]', ...fromTable(['ls']) },
  {
    name: 'curate',
    summary:
      'With a model connected: brv writes a topic from your words (@file attaches a file, Tab completes it). Otherwise, or with no words: a guided template, checked as you type',
    usage: '/curate [<what to record> [@file …]] | /curate [path]',
    args: ['topic'],
    repeat: true,
    mentions: true,
  },
  {
    name: 'edit',
    summary: 'Edit a topic in $VISUAL/$EDITOR: checked on save, committed only if nobody changed it meanwhile',
    usage: '/edit <topic>',
    ...fromTable(['edit']),
  },
  {
    name: 'rm',
    summary: 'Remove a topic (a folder with --recursive) after you answer y; one commit, reviewable',
    usage: '/rm <topic> [--recursive] [--reason <why>]',
    ...fromTable(['rm'], ['recursive', 'reason']),
  },
  {
    name: 'dream',
    summary: 'Find topics to consolidate and propose merges, links and removals as one held review (brv dream)',
    usage: '/dream [--scope <folder>] [--kinds merge,link,prune,stale,synthesize] [--max N] [--dry-run]',
    ...fromTable(['dream'], ['scope', 'kinds', 'max', 'dry-run']),
  },
  {
    name: 'review',
    summary: 'Step through pending reviews (from one of them): approve or reject each topic, resolve merge conflicts',
    usage: '/review [id]',
    args: ['review'],
  },
  {
    name: 'vc',
    summary: 'Version control of the knowledge: log, diff, status, branch, checkout, merge',
    usage: '/vc log|diff|status|branch|checkout|merge …',
    subcommands: {
      log: { summary: 'The brv history', ...fromTable(['vc', 'log'], ['limit', 'all']) },
      diff: { summary: 'What changed (the last commit, or since a revision)', ...fromTable(['vc', 'diff']) },
      status: { summary: 'The branch against its remote', ...fromTable(['vc', 'status']) },
      branch: { summary: 'The brv branches', args: [], options: { '--all': 'flag' } },
      checkout: { summary: 'Switch brv branch (--create makes it)', args: ['branch'], options: { '--create': 'flag' } },
      merge: { summary: 'Merge a brv branch (or remote/branch) into this one', ...fromTable(['vc', 'merge']) },
    },
  },
  { name: 'sync', summary: 'Fetch, merge and push the brv branch', usage: '/sync [remote]', ...fromTable(['sync']) },
  { name: 'sources', summary: 'Knowledge sources this repository reads', usage: '/sources', args: [] },
  { name: 'connectors', summary: 'Which agents are connected to brv here', usage: '/connectors', args: [] },
  {
    name: 'settings',
    summary: 'brv settings (set one: /settings <key> <value>)',
    usage: '/settings [<key> <value>]',
    args: ['setting', 'text'],
  },
  { name: 'doctor', summary: 'Check the setup; each problem with its fix', usage: '/doctor', ...fromTable(['doctor']) },
  { name: 'help', summary: 'Commands and keys', usage: '/help', args: [] },
  { name: 'exit', summary: 'Leave (Ctrl-C twice, or Ctrl-D, too)', usage: '/exit', args: [] },
];

const LIMIT = 20;

function limitOption(value: string | true | undefined, fallback: number, max: number, name = '--limit'): number {
  if (value === undefined || value === true) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1) throw new Error(`${name} takes a whole number from 1 to ${max}.`);
  return Math.min(n, max);
}

/** A question as the results list: the ranked topics, nothing rendered yet (Enter opens one). */
export async function searchOutcome(
  ctx: CommandContext,
  question: string,
  options: { scope?: string; limit?: number } = {},
): Promise<Outcome> {
  // The first question after many new topics builds the index: said as it goes.
  const onProgress = (done: number, total?: number) => ctx.progress(`indexing topics ${done}${total ? ` of ${total}` : ''}`);
  const found = await (
    await ctx.brv()
  ).retrieval.search({ question, limit: options.limit ?? LIMIT, onProgress, ...(options.scope ? { scope: options.scope } : {}) });
  return {
    type: 'results',
    title: `Search: ${question}`,
    question,
    items: found.results.map((r) => ({
      path: r.topicPath,
      title: r.title,
      excerpt: r.excerpt,
      score: r.score,
      terms: r.matched.terms,
      ...('origin' in r && r.origin === 'shared' && typeof r.source === 'string' ? { source: r.source } : {}),
    })),
  };
}

/** A read's text, with the line about fetched knowledge it could not bring in (diverged, held, refused) when this read found one. */
function withNotice(brv: Brv, before: ReturnType<Brv['knowledgeArrival']>, text: string): string {
  const notice = brv.knowledgeNotice(before);
  return notice ? `${text}\n\n${knowledgeNoticeText(notice)}` : text;
}

/** Runs a parsed slash command. Throws what the service throws (the App shows kind and message). */
export async function runCommand(ctx: CommandContext, command: ParsedCommand): Promise<Outcome> {
  const { args, options } = command;
  const text = args.join(' ').trim();
  switch (command.name) {
    case 'ask':
      if (!text) throw new Error('Ask something: /ask <question>.');
      return answerOutcome(ctx, text);
    case 'query': {
      if (!text) throw new Error('Ask something: /query <question>.');
      if (options['--answer'] === true) return answerOutcome(ctx, text);
      const brv = await ctx.brv();
      const before = brv.knowledgeArrival();
      const result = await brv.retrieval.query({ question: text, limit: 5 });
      return { type: 'text', title: `Query: ${text}`, text: withNotice(brv, before, queryText(result)), markdown: true };
    }
    case 'search': {
      if (!text) throw new Error('Search for something: /search <question>.');
      const scope = typeof options['--scope'] === 'string' ? options['--scope'] : undefined;
      return searchOutcome(ctx, text, { scope, limit: limitOption(options['--limit'], LIMIT, 50) });
    }
    case 'read':
      if (!args[0]) throw new Error('Name a topic: /read <topic> (Tab completes paths).');
      return { type: 'topic', path: args[0], ...(typeof options['--source'] === 'string' ? { source: options['--source'] } : {}) };
    case 'ls': {
      const brv = await ctx.brv();
      const before = brv.knowledgeArrival();
      const listed = await brv.knowledge.list(args[0] ? { prefix: args[0] } : {});
      return {
        type: 'text',
        title: `Topics${listed.prefix ? ` under ${listed.prefix}` : ''}`,
        text: withNotice(brv, before, listText(listed)),
      };
    }
    case 'rm':
      if (!args[0]) throw new Error('Name a topic: /rm <topic>.');
      return removeOutcome(ctx, args[0], options);
    case 'dream':
      return dreamOutcome(ctx, options);
    case 'curate': {
      if (text && (await (await ctx.brv()).knowledge.modelConnection())) return curateAuto(ctx, text);
      if (args.length > 1)
        throw new Error(
          'Without a model, /curate opens the guided template: /curate [path]. Connect one (brv providers connect <provider>) to curate from your words.',
        );
      return { type: 'curate', ...(args[0] ? { path: args[0] } : {}) };
    }
    case 'edit':
      if (!args[0]) throw new Error('Name a topic: /edit <topic> (Tab completes paths).');
      return { type: 'edit', path: args[0] };
    case 'review':
      return { type: 'review', ...(args[0] ? { id: args[0] } : {}) };
    case 'vc':
      return runVc(ctx, command);
    case 'sync': {
      const brv = await ctx.brv();
      try {
        const result = await brv.sharing.sync({ ...(args[0] ? { remote: args[0] } : {}), onProgress: progressOf(ctx) }, ctx.actor);
        return { type: 'text', title: 'Sync', text: syncText(result) };
      } finally {
        ctx.progress(undefined);
      }
    }
    case 'sources':
      return { type: 'text', title: 'Knowledge sources', text: sourcesText(await (await ctx.brv()).sharing.sources()) };
    case 'connectors': {
      const status = await ctx.service.connectorStatus({ cwd: ctx.cwd });
      return { type: 'text', title: 'Connectors', text: connectorStatusText(status.scopes, status.connectors) };
    }
    case 'settings': {
      const brv = await ctx.brv();
      if (args.length === 0) return { type: 'text', title: 'Settings', text: settingsText(await brv.setup.settings()) };
      if (args.length === 1) throw new Error(`Give a value: /settings ${args[0]} <value>.`);
      return { type: 'note', text: settingSetText(await brv.setup.setSetting({ key: args[0]!, value: args.slice(1).join(' ') }), false) };
    }
    case 'doctor':
      return { type: 'text', title: 'Doctor', text: doctorText(await (await ctx.brv()).setup.doctor()) };
    case 'help':
      return { type: 'help' };
    case 'exit':
      return { type: 'exit' };
    default:
      throw new Error(`No command /${command.name}.`);
  }
}

/** `/ask`, `/query --answer`: the model's checked answer; when the model fails, what retrieval found with the error under it. */
async function answerOutcome(ctx: CommandContext, question: string): Promise<Outcome> {
  const brv = await ctx.brv();
  try {
    const result = await brv.retrieval.answer({
      question,
      ...(ctx.signal ? { signal: ctx.signal } : {}),
      onAnswerText: (received) => ctx.progress(`characters received ${received}`),
    });
    if (result.modelError) {
      const { kind, message } = result.modelError;
      return {
        type: 'text',
        title: `Query: ${question} (no answer)`,
        text: queryText(result.query),
        markdown: true,
        message: { tone: 'error', text: `${kind}: No answer: ${message} The topics brv found are above.` },
      };
    }
    return {
      type: 'text',
      title: `Answer: ${question}`,
      text: answerMarkdown(result),
      markdown: true,
      ...(result.usage.requests > 0 ? { message: { tone: 'info' as const, text: usageLine(result.usage) } } : {}),
    };
  } finally {
    ctx.progress(undefined);
  }
}

/** `/rm`: what would go, asked first (y/N); nothing is removed on any other answer. */
async function removeOutcome(ctx: CommandContext, raw: string, options: ParsedCommand['options']): Promise<Outcome> {
  const brv = await ctx.brv();
  const path = raw.replace(/\/+$/, '');
  const recursive = options['--recursive'] === true;
  const reason = typeof options['--reason'] === 'string' ? options['--reason'] : undefined;
  const exists = await brv.knowledge.read({ path }).then(
    () => true,
    (error: unknown) => {
      if (isBrvError(error) && error.kind === 'not-found') return false;
      throw error;
    },
  );
  const under = exists ? [] : (await brv.knowledge.list({ prefix: path })).topics;
  if (!exists && under.length === 0) throw new Error(`No topic at ${path}: /ls lists them (Tab completes paths).`);
  if (!exists && !recursive)
    throw new Error(
      `${path} is a folder of ${under.length} topic${under.length === 1 ? '' : 's'}: /rm ${path} --recursive removes all of them.`,
    );
  const what = exists ? `the topic ${path}` : `${under.length} topic${under.length === 1 ? '' : 's'} under ${path}/ (${clipList(under)})`;
  return {
    type: 'confirm',
    question: `Remove ${what}? One commit, reviewable. y removes, any other key keeps ${exists ? 'it' : 'them'}.`,
    doing: `Removing ${path}…`,
    declined: `Kept ${path}: nothing was removed.`,
    proceed: async () => {
      const removed = await brv.knowledge.remove({ path, recursive, ...(reason !== undefined ? { reason } : {}) }, ctx.actor);
      return { type: 'note', text: removeText(removed) };
    },
  };
}

function clipList(paths: readonly string[]): string {
  return paths.length <= 3 ? paths.join(', ') : `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more`;
}

/** `/dream`: the candidates and proposals, recorded as one held review (`/review` decides it). */
async function dreamOutcome(ctx: CommandContext, options: ParsedCommand['options']): Promise<Outcome> {
  const text = (name: string) => (typeof options[name] === 'string' ? (options[name] as string) : undefined);
  const kindsText = text('--kinds');
  const kinds = kindsText
    ?.split(',')
    .map((k) => k.trim())
    .filter(Boolean);
  const unknown = kinds?.filter((k) => !(DREAM_KINDS as readonly string[]).includes(k)) ?? [];
  if (kinds && (kinds.length === 0 || unknown.length > 0))
    throw new Error(`--kinds takes a comma-separated list of ${DREAM_KINDS.join(', ')}.`);
  const brv = await ctx.brv();
  try {
    const result = await brv.knowledge.dream(
      {
        ...(text('--scope') ? { scope: text('--scope') } : {}),
        ...(kinds ? { kinds: kinds as DreamKind[] } : {}),
        max: limitOption(options['--max'], 50, 1000, '--max'),
        dryRun: options['--dry-run'] === true,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        onProgress: (step, done, total) => ctx.progress(`${step} ${done}${total ? ` of ${total}` : ''}`),
      },
      ctx.actor,
    );
    return {
      type: 'text',
      title: 'Dream',
      text: dreamText(result),
      ...(result.usage ? { message: { tone: 'info' as const, text: usageLine(result.usage) } } : {}),
    };
  } finally {
    ctx.progress(undefined);
  }
}

/** `/curate <text>` with a model: self-driven curate, its steps on the busy line; done opens the topic. */
async function curateAuto(ctx: CommandContext, intent: string): Promise<Outcome> {
  const brv = await ctx.brv();
  try {
    const result = await brv.knowledge.curateAuto(
      { intent, signal: ctx.signal, onProgress: (event) => ctx.progress(curateAutoProgressLine(event)) },
      ctx.actor,
    );
    const notes = [...curateAutoNotes(result), ...(result.usage.requests > 0 ? [usageLine(result.usage)] : [])];
    if (result.ok && result.status === 'done' && result.topicPath && !result.held)
      return { type: 'topic', path: result.topicPath, note: [curateText(result).replace(/\n/g, ' · '), ...notes].join(' · ') };
    return { type: 'text', title: result.ok ? 'Curate' : 'Curate failed', text: [curateText(result), '', ...notes].join('\n') };
  } finally {
    ctx.progress(undefined);
  }
}

function progressOf(ctx: CommandContext): (step: SyncProgress) => void {
  return (step) => {
    const transfer = syncTransferText(step);
    ctx.progress(transfer ? `${syncStepText(step)} ${transfer.text}` : syncStepText(step));
  };
}

async function runVc(ctx: CommandContext, command: ParsedCommand): Promise<Outcome> {
  const brv = await ctx.brv();
  const { args, options } = command;
  switch (command.subcommand) {
    case 'log': {
      const entries = await brv.history.log({
        limit: limitOption(options['--limit'], 30, 1000),
        all: options['--all'] === true,
        ...(args[0] ? { path: args[0] } : {}),
      });
      return { type: 'text', title: 'History', text: logText(brv.branch, entries) };
    }
    case 'diff':
      return {
        type: 'text',
        title: 'Diff',
        text: diffText(await brv.history.diff({ ...(args[0] ? { range: args[0] } : {}), patch: true })),
      };
    case 'status':
      return { type: 'text', title: 'Status', text: vcStatusText(await brv.history.status()) };
    case 'branch':
      return { type: 'text', title: 'Branches', text: branchesText(await brv.history.branches({ all: options['--all'] === true })) };
    case 'checkout':
      if (!args[0]) throw new Error('Name a branch: /vc checkout <branch> (--create to make it).');
      return { type: 'note', text: checkoutText(await brv.history.checkout({ name: args[0], create: options['--create'] === true })) };
    case 'merge':
      if (!args[0]) throw new Error('Name what to merge: /vc merge <branch> (or <remote>/<branch>).');
      return { type: 'text', title: 'Merge', text: mergeText(args[0], await brv.history.merge({ source: args[0] }, ctx.actor)) };
    default:
      throw new Error('/vc log|diff|status|branch|checkout|merge');
  }
}
