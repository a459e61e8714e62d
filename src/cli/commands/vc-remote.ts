import type { CommandModule } from 'yargs';
import { stoppingGit } from '../stop-git-with-brv.js';
import path from 'node:path';
import { cliActor, cliService, reportingErrors, withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { stepNotes } from '../progress.js';
import { EXIT_USAGE, note, printError, printJson, printText } from '../output.js';
import {
  syncStepText,
  syncTransferText,
  cloneText,
  fetchText,
  layoutChangedText,
  pullText,
  pushText,
  refusedNotes,
  remoteChangedText,
  remotesText,
  syncText,
} from '../../views/vc.js';
import { BRV_REF_PREFIX, REMOTE_LAYOUTS, remoteTrackingPrefix, type RemoteLayout } from '../../base/ref-names.js';
import { redactCredentials } from '../../base/errors.js';
import type { SyncProgress } from '../../service/sharing.js';

interface RemoteOptions extends GlobalOptions {
  action?: string;
  name?: string;
  url?: string;
  layout?: RemoteLayout;
}

const LAYOUT_HELP = `refs (${BRV_REF_PREFIX}*, the default) or branches (ordinary branches brv/<branch> and brv-review/<id>, for hosts that accept only branches and tags; see the README)`;

export const vcRemoteCommand: CommandModule<GlobalOptions, RemoteOptions> = {
  command: 'remote [action] [name] [url]',
  describe:
    "Show or change the repository's git remotes (add | set-url | set-layout | remove); any URL git accepts. add also makes a plain git fetch/pull from it bring knowledge",
  builder: (y) =>
    y
      .positional('action', {
        choices: ['add', 'set-url', 'set-layout', 'remove'] as const,
        describe: 'Omit to list the remotes. set-layout <name> <refs|branches>: where the remote keeps knowledge',
      })
      .positional('name', { type: 'string', describe: 'Remote name, e.g. origin' })
      .positional('url', {
        type: 'string',
        describe: 'GitHub/GitLab URL, ssh path, file:// URL or a directory (set-layout: refs or branches)',
      })
      .option('layout', { choices: REMOTE_LAYOUTS, describe: `With add: where the remote keeps knowledge, ${LAYOUT_HELP}` }),
  handler: (argv) => {
    const missing =
      argv.action && !argv.name
        ? 'a remote name'
        : (argv.action === 'add' || argv.action === 'set-url') && !argv.url
          ? 'a URL'
          : argv.action === 'set-layout' && !argv.url
            ? `a layout (${REMOTE_LAYOUTS.join(' or ')})`
            : undefined;
    if (missing)
      return printError('vc remote', argv.format, 'usage', `vc remote ${argv.action} needs ${missing} (see --help).`, EXIT_USAGE);
    if (argv.layout && argv.action !== 'add')
      return printError(
        'vc remote',
        argv.format,
        'usage',
        '--layout goes with vc remote add; for an existing remote use vc remote set-layout <name> <refs|branches>.',
        EXIT_USAGE,
      );
    const layout = argv.action === 'set-layout' ? REMOTE_LAYOUTS.find((l) => l === argv.url) : undefined;
    if (argv.action === 'set-layout' && !layout)
      return printError(
        'vc remote',
        argv.format,
        'usage',
        `"${argv.url}" is not a layout: use ${REMOTE_LAYOUTS.join(' or ')} (see --help).`,
        EXIT_USAGE,
      );
    return withBrv('vc remote', argv, async (brv) => {
      if (layout) {
        const result = await brv.sharing.setRemoteLayout({ name: argv.name!, layout });
        if (argv.format === 'json') return printJson('vc remote', true, { action: 'set-layout', ...result });
        return printText(layoutChangedText(result));
      }
      if (argv.action === 'add' || argv.action === 'set-url') {
        const result =
          argv.action === 'add'
            ? await brv.sharing.addRemote({ name: argv.name!, url: argv.url!, layout: argv.layout })
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
  layout?: RemoteLayout;
}

export const vcCloneCommand: CommandModule<GlobalOptions, CloneOptions> = {
  command: 'clone <url> [dir]',
  describe: 'git clone a repository together with its knowledge (brv branches and reviews)',
  builder: (y) =>
    y
      .positional('url', { type: 'string', demandOption: true, describe: 'Any URL git can clone (ssh, https, file://, a path)' })
      .positional('dir', { type: 'string', describe: 'Target directory (default: from the URL, as git does)' })
      .option('layout', {
        choices: REMOTE_LAYOUTS,
        describe: `Where origin keeps knowledge: ${LAYOUT_HELP}. Default: branches when the remote has brv commits on branches brv/* and no ${BRV_REF_PREFIX}*, else refs`,
      }),
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
      const result = await (
        await cliService()
      ).clone({ url: argv.url, directory: dir, cwd: path.resolve(cliCwd(argv.C)), layout: argv.layout });
      if (argv.format === 'json') return printJson('vc clone', true, result);
      for (const line of refusedNotes(result.refused)) note(line);
      printText(cloneText(result));
    }),
  ),
};
