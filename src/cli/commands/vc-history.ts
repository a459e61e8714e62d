import type { CommandModule } from 'yargs';
import { withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';
import { shortOid } from '../../views/format.js';

interface LogOptions extends GlobalOptions {
  limit: number;
  all: boolean;
  path?: string;
}

export const vcLogCommand: CommandModule<GlobalOptions, LogOptions> = {
  command: 'log [path]',
  describe: 'Commits of the current brv branch (or of all with --all), newest first, with their trailers',
  builder: (y) =>
    y
      .positional('path', { type: 'string', describe: 'Only commits that changed this topic or folder' })
      .option('limit', { alias: 'n', type: 'number', default: 10, describe: 'How many commits (1–10000)' })
      .option('all', { type: 'boolean', default: false, describe: 'Every local brv branch' }),
  handler: (argv) =>
    withBrv('vc log', argv, async (brv) => {
      const limit = Math.max(1, Math.min(10000, Math.floor(argv.limit)));
      const entries = await brv.history(limit, { all: argv.all, path: argv.path });
      if (argv.format === 'json') return printJson('vc log', true, { branch: brv.branch, entries });
      if (entries.length === 0) return printText(`No commits on brv branch ${brv.branch}.`);
      const lines: string[] = [];
      for (const entry of entries) {
        const tags = [entry.meta.op, entry.meta.type, entry.meta.impact && `impact ${entry.meta.impact}`].filter(Boolean).join(', ');
        lines.push(`${shortOid(entry.commit)}  ${entry.time}  ${entry.author}`);
        lines.push(`    ${entry.subject}${tags ? `  [${tags}]` : ''}`);
        for (const path of entry.meta.conflicts ?? []) lines.push(`    conflict kept for review: ${path}`);
        for (const change of entry.changes) if (!change.path.startsWith('.brv/')) lines.push(`    ${change.status} ${change.path}`);
      }
      printText(lines.join('\n'));
    }),
};

interface DiffOptions extends GlobalOptions {
  range?: string;
  stat: boolean;
  path?: string[];
}

export const vcDiffCommand: CommandModule<GlobalOptions, DiffOptions> = {
  command: 'diff [range]',
  describe: 'Topics added, removed and changed between brv commits, with a diff of each changed topic',
  builder: (y) =>
    y
      .positional('range', {
        type: 'string',
        describe: 'Nothing: the last commit; <rev>: from rev to the tip; <a>..<b>: between two (branches, commits, main~2, dates)',
      })
      .option('stat', { type: 'boolean', default: false, describe: 'Only list the changed topics' })
      .option('path', { type: 'string', array: true, describe: 'Only these topics or folders' }),
  handler: (argv) =>
    withBrv('vc diff', argv, async (brv) => {
      const paths = argv.path?.map((p) => p.replace(/\/+$/, '').replace(/\.html$/, ''));
      const result = await brv.diff(argv.range, { patch: !argv.stat, paths });
      if (argv.format === 'json') return printJson('vc diff', true, result);
      if (result.changes.length === 0) return printText('No topic changes.');
      const lines: string[] = [];
      for (const change of result.changes) {
        lines.push(`${change.status.padEnd(8)} ${change.path}`);
        if (change.diff) lines.push(change.diff.trimEnd(), '');
      }
      printText(lines.join('\n'));
    }),
};

interface ShowOptions extends GlobalOptions {
  spec?: string;
  stat: boolean;
}

export const vcShowCommand: CommandModule<GlobalOptions, ShowOptions> = {
  command: 'show [spec]',
  describe: 'One brv commit and its topic changes, or <rev>:<path> for a topic as it was then',
  builder: (y) =>
    y
      .positional('spec', { type: 'string', describe: 'A brv commit, branch (main~1), tag or date; or <rev>:<topic path>' })
      .option('stat', { type: 'boolean', default: false, describe: 'List changed topics without their diffs' }),
  handler: (argv) =>
    withBrv('vc show', argv, async (brv) => {
      const result = await brv.show(argv.spec, { patch: !argv.stat });
      if (argv.format === 'json') return printJson('vc show', true, result.kind === 'topic' ? result.topic : result.commit);
      if (result.kind === 'topic') return printText(result.topic.content);
      const { commit } = result;
      const lines = [`commit ${commit.commit}`, `Author: ${commit.author}`, `Date:   ${commit.time}`, '', `    ${commit.subject}`, ''];
      for (const [key, value] of Object.entries(commit.meta)) lines.push(`    ${key}: ${Array.isArray(value) ? value.join(', ') : value}`);
      if (Object.keys(commit.meta).length > 0) lines.push('');
      for (const change of commit.changes) {
        lines.push(`${change.status.padEnd(8)} ${change.path}`);
        if (change.diff) lines.push(change.diff.trimEnd(), '');
      }
      printText(lines.join('\n'));
    }),
};

export const vcStatusCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'status',
  describe: 'The brv branch, how far it is ahead of / behind its remote, and open reviews',
  handler: (argv) =>
    withBrv('vc status', argv, async (brv) => {
      const status = await brv.vcStatus();
      if (argv.format === 'json') return printJson('vc status', true, status);
      const lines = [`On brv branch ${status.branch} (${status.tip ? shortOid(status.tip) : 'no commits yet'})`];
      if (!status.remote) lines.push('No git remote: knowledge is only here. Add one with brv vc remote add origin <url>.');
      else if (!status.tracking)
        lines.push(`Not yet pushed to ${status.remote}: ${status.ahead} commit(s) to push (brv vc push -u ${status.remote}).`);
      else if (status.ahead === 0 && status.behind === 0) lines.push(`Up to date with ${status.remote}/${status.branch}.`);
      else
        lines.push(`${status.ahead} commit(s) to push, ${status.behind} to pull (${status.remote}/${status.branch}); brv sync does both.`);
      lines.push(
        status.openReviews === 0
          ? 'No open reviews.'
          : `${status.openReviews} open review(s), ${status.pendingChanges} change(s) pending: brv review pending.`,
      );
      printText(lines.join('\n'));
    }),
};

interface ConfigOptions extends GlobalOptions {
  key: string;
  value?: string;
}

export const vcConfigCommand: CommandModule<GlobalOptions, ConfigOptions> = {
  command: 'config <key> [value]',
  describe: "Read or set the author of brv commits (the repository's git user.name / user.email)",
  builder: (y) =>
    y
      .positional('key', { choices: ['user.name', 'user.email'] as const, demandOption: true, describe: 'user.name or user.email' })
      .positional('value', { type: 'string', describe: 'New value (omit to read)' }),
  handler: (argv) =>
    withBrv('vc config', argv, async (brv) => {
      const result = await brv.gitConfig(argv.key as 'user.name' | 'user.email', argv.value);
      if (argv.format === 'json') return printJson('vc config', true, result);
      printText(result.value ?? `${argv.key} is not set (git config ${argv.key} "…").`);
    }),
};
