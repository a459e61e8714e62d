import type { CommandModule } from 'yargs';
import { stoppingGit } from '../stop-git-with-brv.js';
import path from 'node:path';
import { cliActor, cliService, reportingErrors, withBrv, type GlobalOptions } from '../context.js';
import { stepNotes } from '../progress.js';
import { EXIT_USAGE, note, printError, printJson, printText } from '../output.js';
import {
  syncStepText,
  syncTransferText,
  cloneText,
  fetchText,
  pullText,
  pushText,
  refusedNotes,
  remoteChangedText,
  remotesText,
  syncText,
} from '../../views/vc.js';
import { remoteTrackingPrefix } from '../../store/refs.js';
import { redactCredentials } from '../../errors.js';
import type { SyncProgress } from '../../service/sharing.js';

interface RemoteOptions extends GlobalOptions {
  action?: string;
  name?: string;
  url?: string;
}

export const vcRemoteCommand: CommandModule<GlobalOptions, RemoteOptions> = {
  command: 'remote [action] [name] [url]',
  describe:
    "Show or change the repository's git remotes (add | set-url | remove); any URL git accepts. add also makes a plain git fetch/pull from it bring knowledge",
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
        const result =
          argv.action === 'add'
            ? await brv.sharing.addRemote({ name: argv.name!, url: argv.url! })
            : await brv.sharing.setRemoteUrl({ name: argv.name!, url: argv.url! });
        if (argv.format === 'json') return printJson('vc remote', true, { action: argv.action, ...result });
        return printText(remoteChangedText(argv.action, result));
      }
      if (argv.action === 'remove') {
        const result = await brv.sharing.removeRemote({ name: argv.name! });
        if (argv.format === 'json') return printJson('vc remote', true, { action: 'remove', ...result });
        return printText(remoteChangedText('remove', result));
      }
      const remotes = await brv.sharing.remotes();
      if (argv.format === 'json') return printJson('vc remote', true, { remotes });
      printText(remotesText(remotes));
    });
  },
};

/** Runs a fetch, pull, push or sync with its steps and git's transfer progress on stderr. */
export async function withSyncProgress<T>(argv: GlobalOptions, run: (onProgress: (step: SyncProgress) => void) => Promise<T>): Promise<T> {
  const progress = stepNotes(syncStepText, argv, syncTransferText);
  try {
    return await run(progress.onStep);
  } finally {
    progress.finish();
  }
}

interface RemoteArg extends GlobalOptions {
  remote?: string;
}

export const vcFetchCommand: CommandModule<GlobalOptions, RemoteArg> = {
  command: 'fetch [remote]',
  describe: `Fetch a remote's brv branches and reviews into ${remoteTrackingPrefix('<remote>')} (nothing local changes)`,
  builder: (y) => y.positional('remote', { type: 'string', describe: 'Defaults to the upstream, origin, or the only remote' }),
  handler: stoppingGit((argv) =>
    withBrv('vc fetch', argv, async (brv) => {
      const result = await withSyncProgress(argv, (onProgress) => brv.sharing.fetch({ remote: argv.remote, onProgress }));
      if (argv.format === 'json') return printJson('vc fetch', true, result);
      for (const line of refusedNotes(result.refused)) note(line);
      printText(fetchText(result));
    }),
  ),
};

export const vcPullCommand: CommandModule<GlobalOptions, RemoteArg> = {
  command: 'pull [remote]',
  describe: 'Fetch, then merge the remote copy of the current brv branch into it',
  builder: (y) => y.positional('remote', { type: 'string', describe: 'Defaults to the upstream, origin, or the only remote' }),
  handler: stoppingGit((argv) =>
    withBrv('vc pull', argv, async (brv) => {
      const result = await withSyncProgress(argv, (onProgress) => brv.sharing.pull({ remote: argv.remote, onProgress }, cliActor()));
      if (argv.format === 'json') return printJson('vc pull', true, result);
      printText(pullText(result));
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
      const result = await withSyncProgress(argv, (onProgress) =>
        brv.sharing.push({ remote: argv.remote, setUpstream: argv.u, onProgress }),
      );
      if (argv.format === 'json') return printJson('vc push', true, result);
      printText(pushText(result));
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
      const result = await withSyncProgress(argv, (onProgress) => brv.sharing.sync({ remote: argv.remote, onProgress }, cliActor()));
      if (argv.format === 'json') return printJson('sync', true, result);
      printText(syncText(result));
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
      const dir =
        argv.dir ??
        argv.url
          .replace(/\/+$/, '')
          .replace(/\.git$/, '')
          .split(/[/:]/)
          .pop() ??
        'repository';
      if (argv.format === 'text') note(`Cloning ${redactCredentials(argv.url)} into ${dir}…`);
      const result = await (await cliService()).clone({ url: argv.url, directory: dir, cwd: path.resolve(argv.C ?? process.cwd()) });
      if (argv.format === 'json') return printJson('vc clone', true, result);
      for (const line of refusedNotes(result.refused)) note(line);
      printText(cloneText(result));
    }),
  ),
};
