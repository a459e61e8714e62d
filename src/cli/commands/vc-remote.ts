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
import { REMOTE_LAYOUTS, type RemoteLayout } from '../../base/ref-names.js';
import { redactCredentials } from '../../base/errors.js';
import type { SyncProgress } from '../../service/sharing.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface RemoteOptions extends GlobalOptions {
  action?: string;
  name?: string;
  url?: string;
  layout?: RemoteLayout;
}

export const vcRemoteCommand = tableCommand<RemoteOptions>(declaration('vc remote'), {
  handler: (argv) => {
    // Which positionals are needed depends on the action (and set-layout's third is a layout, not a URL):
    // checked here, not declared.
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
});

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

export const vcFetchCommand = tableCommand<RemoteArg>(declaration('vc fetch'), {
  handler: stoppingGit((argv) =>
    withBrv('vc fetch', argv, async (brv) => {
      const result = await withSyncProgress(argv, (onProgress) => brv.sharing.fetch({ remote: argv.remote, onProgress }));
      if (argv.format === 'json') return printJson('vc fetch', true, result);
      for (const line of refusedNotes(result.refused)) note(line);
      printText(fetchText(result));
    }),
  ),
});

export const vcPullCommand = tableCommand<RemoteArg>(declaration('vc pull'), {
  handler: stoppingGit((argv) =>
    withBrv('vc pull', argv, async (brv) => {
      const result = await withSyncProgress(argv, (onProgress) => brv.sharing.pull({ remote: argv.remote, onProgress }, cliActor()));
      if (argv.format === 'json') return printJson('vc pull', true, result);
      printText(pullText(result));
    }),
  ),
});

interface PushOptions extends RemoteArg {
  u: boolean;
}

export const vcPushCommand = tableCommand<PushOptions>(declaration('vc push'), {
  handler: stoppingGit((argv) =>
    withBrv('vc push', argv, async (brv) => {
      const result = await withSyncProgress(argv, (onProgress) =>
        brv.sharing.push({ remote: argv.remote, setUpstream: argv.u, onProgress }),
      );
      if (argv.format === 'json') return printJson('vc push', true, result);
      printText(pushText(result));
    }),
  ),
});

export const syncCommand = tableCommand<RemoteArg>(declaration('sync'), {
  handler: stoppingGit((argv) =>
    withBrv('sync', argv, async (brv) => {
      if (argv.format === 'text') note(`Syncing brv branch ${brv.branch}…`);
      const result = await withSyncProgress(argv, (onProgress) => brv.sharing.sync({ remote: argv.remote, onProgress }, cliActor()));
      if (argv.format === 'json') return printJson('sync', true, result);
      printText(syncText(result));
    }),
  ),
});

interface CloneOptions extends GlobalOptions {
  url: string;
  dir?: string;
  layout?: RemoteLayout;
}

export const vcCloneCommand = tableCommand<CloneOptions>(declaration('vc clone'), {
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
});
