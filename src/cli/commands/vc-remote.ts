import type { CommandModule } from 'yargs';
import { stoppingGit } from '../stop-git-with-brv.js';
import { reportingErrors, withBrv, type GlobalOptions } from '../context.js';
import { EXIT_USAGE, note, printError, printJson, printText } from '../output.js';
import { describeMerge } from './vc-branch.js';
import { remoteTrackingPrefix } from '../../store/refs.js';

interface RemoteOptions extends GlobalOptions {
  action?: string;
  name?: string;
  url?: string;
}

export const vcRemoteCommand: CommandModule<GlobalOptions, RemoteOptions> = {
  command: 'remote [action] [name] [url]',
  describe: "Show or change the repository's git remotes (add | set-url | remove); any URL git accepts",
  builder: (y) =>
    y
      .positional('action', { choices: ['add', 'set-url', 'remove'] as const, describe: 'Omit to list the remotes' })
      .positional('name', { type: 'string', describe: 'Remote name, e.g. origin' })
      .positional('url', { type: 'string', describe: 'GitHub/GitLab URL, ssh path, file:// URL or a directory' }),
  handler: (argv) => {
    const missing =
      argv.action && !argv.name ? 'a remote name' : (argv.action === 'add' || argv.action === 'set-url') && !argv.url ? 'a URL' : undefined;
    if (missing)
      return printError('vc remote', argv.format, 'usage', `vc remote ${argv.action} needs ${missing} (see --help).`, EXIT_USAGE);
    return withBrv('vc remote', argv, async (brv) => {
      if (argv.action === 'add' || argv.action === 'set-url') {
        const result = argv.action === 'add' ? await brv.remoteAdd(argv.name!, argv.url!) : await brv.remoteSetUrl(argv.name!, argv.url!);
        if (argv.format === 'json') return printJson('vc remote', true, { action: argv.action, ...result });
        return printText(`${argv.action === 'add' ? 'Added' : 'Updated'} remote ${result.name} → ${result.url}.`);
      }
      if (argv.action === 'remove') {
        const result = await brv.remoteRemove(argv.name!);
        if (argv.format === 'json') return printJson('vc remote', true, { action: 'remove', ...result });
        return printText(`Removed remote ${result.name}.`);
      }
      const remotes = await brv.remotes();
      if (argv.format === 'json') return printJson('vc remote', true, { remotes });
      printText(
        remotes.length ? remotes.map((r) => `${r.name}\t${r.url}`).join('\n') : 'No remotes. Add one with brv vc remote add origin <url>.',
      );
    });
  },
};

interface RemoteArg extends GlobalOptions {
  remote?: string;
}

export const vcFetchCommand: CommandModule<GlobalOptions, RemoteArg> = {
  command: 'fetch [remote]',
  describe: `Fetch a remote's brv branches and reviews into ${remoteTrackingPrefix('<remote>')} (nothing local changes)`,
  builder: (y) => y.positional('remote', { type: 'string', describe: 'Defaults to the upstream, origin, or the only remote' }),
  handler: stoppingGit((argv) =>
    withBrv('vc fetch', argv, async (brv) => {
      const result = await brv.fetch(argv.remote);
      if (argv.format === 'json') return printJson('vc fetch', true, result);
      const lines = [`Fetched ${result.branches.length} brv branch(es) from ${result.remote}.`];
      if (result.createdBranches.length) lines.push(`New local brv branches: ${result.createdBranches.join(', ')}`);
      if (result.reviews.opened.length) lines.push(`Reviews opened by teammates: ${result.reviews.opened.join(', ')}`);
      if (result.reviews.closed.length) lines.push(`Reviews decided by teammates: ${result.reviews.closed.join(', ')}`);
      for (const refused of result.refused) note(`Refused ${refused.ref}: ${refused.message}`);
      printText(lines.join('\n'));
    }),
  ),
};

export const vcPullCommand: CommandModule<GlobalOptions, RemoteArg> = {
  command: 'pull [remote]',
  describe: 'Fetch, then merge the remote copy of the current brv branch into it',
  builder: (y) => y.positional('remote', { type: 'string', describe: 'Defaults to the upstream, origin, or the only remote' }),
  handler: stoppingGit((argv) =>
    withBrv('vc pull', argv, async (brv) => {
      const result = await brv.pull(argv.remote);
      if (argv.format === 'json') return printJson('vc pull', true, result);
      printText(describeMerge(`${result.remote}/${result.branch}`, result.merge));
    }),
  ),
};

interface PushOptions extends RemoteArg {
  u: boolean;
}

export const vcPushCommand: CommandModule<GlobalOptions, PushOptions> = {
  command: 'push [remote]',
  describe: 'Push the current brv branch and reviews (never forced; atomic where the server supports it)',
  builder: (y) =>
    y
      .positional('remote', { type: 'string', describe: 'Defaults to the upstream, origin, or the only remote' })
      .option('u', { alias: 'set-upstream', type: 'boolean', default: false, describe: 'Remember this remote for the branch' }),
  handler: stoppingGit((argv) =>
    withBrv('vc push', argv, async (brv) => {
      const result = await brv.push(argv.remote, { setUpstream: argv.u });
      if (argv.format === 'json') return printJson('vc push', true, result);
      const branch = result.refs.find((r) => r.ref.endsWith(`/heads/${result.branch}`));
      printText(
        `${branch?.status === 'up-to-date' ? 'Already up to date on' : 'Pushed brv branch ' + result.branch + ' to'} ${result.remote}.` +
          (result.upstreamSet ? ` Upstream set to ${result.remote}.` : ''),
      );
    }),
  ),
};

export const syncCommand: CommandModule<GlobalOptions, RemoteArg> = {
  command: 'sync [remote]',
  describe: 'Fetch, merge and push the current brv branch and reviews in one step (retries if the remote moves)',
  builder: (y) => y.positional('remote', { type: 'string', describe: 'Defaults to the upstream, origin, or the only remote' }),
  handler: stoppingGit((argv) =>
    withBrv('sync', argv, async (brv) => {
      if (argv.format === 'text') note(`Syncing brv branch ${brv.branch}…`);
      const result = await brv.sync(argv.remote);
      if (argv.format === 'json') return printJson('sync', true, result);
      const lines: string[] = [];
      if (result.merge) lines.push(describeMerge(`${result.remote}/${result.branch}`, result.merge));
      const pushed = result.push.refs.find((r) => r.ref.endsWith(`/heads/${result.branch}`));
      lines.push(pushed?.status === 'ok' ? `Pushed to ${result.remote}.` : `Nothing to push to ${result.remote}.`);
      printText(lines.join('\n'));
    }),
  ),
};

interface CloneOptions extends GlobalOptions {
  url: string;
  dir?: string;
}

export const vcCloneCommand: CommandModule<GlobalOptions, CloneOptions> = {
  command: 'clone <url> [dir]',
  describe: 'git clone a repository together with its knowledge (brv branches and reviews)',
  builder: (y) =>
    y
      .positional('url', { type: 'string', demandOption: true, describe: 'Any URL git can clone (ssh, https, file://, a path)' })
      .positional('dir', { type: 'string', describe: 'Target directory (default: from the URL, as git does)' }),
  handler: stoppingGit((argv) =>
    reportingErrors('vc clone', argv, async () => {
      const { Brv } = await import('../../service/brv.js');
      const dir =
        argv.dir ??
        argv.url
          .replace(/\/+$/, '')
          .replace(/\.git$/, '')
          .split(/[/:]/)
          .pop() ??
        'repository';
      if (argv.format === 'text') note(`Cloning ${argv.url} into ${dir}…`);
      const result = await Brv.clone(argv.url, dir, argv.C ?? process.cwd());
      if (argv.format === 'json') return printJson('vc clone', true, result);
      for (const refused of result.refused) note(`Refused ${refused.ref}: ${refused.message}`);
      printText(
        `Cloned into ${result.directory}; brv branches: ${result.branches.length ? result.branches.join(', ') : 'none yet (run brv init)'}.` +
          ` A plain git fetch now brings knowledge too.`,
      );
    }),
  ),
};
