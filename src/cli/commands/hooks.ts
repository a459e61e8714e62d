import path from 'node:path';
import type { ErrorKind } from '../../base/error-kinds.js';
import type { HookName } from '../../service/names.js';
import type { Brv } from '../../service/brv.js';
import { cliActor, cliService, withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { EXIT_FAILURE, note, printJson, printText } from '../output.js';
import { stoppingGit } from '../stop-git-with-brv.js';
import { withSyncProgress } from './vc-remote.js';
import { hooksInstallText, hooksStatusText, hooksUninstallText, integratedNote, staleWarning } from '../../views/hooks.js';
import { cliIo, setExitCode } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface SelectOptions extends GlobalOptions {
  hooks?: string[];
}

interface RunOptions extends GlobalOptions {
  hook: HookName;
  args?: string[];
  'cache-only'?: boolean;
}

const installCommand = tableCommand<SelectOptions>(declaration('hooks install'), {
  handler: stoppingGit((argv) =>
    withBrv('hooks install', argv, async (brv) => {
      const report = await withSyncProgress(argv, (onProgress) => brv.setup.installHooks({ hooks: argv.hooks, onProgress }));
      if (argv.format === 'json') return printJson('hooks install', true, report);
      printText(hooksInstallText(report));
    }),
  ),
});

const uninstallCommand = tableCommand<SelectOptions>(declaration('hooks uninstall'), {
  handler: (argv) =>
    withBrv('hooks uninstall', argv, async (brv) => {
      const report = await brv.setup.uninstallHooks({ hooks: argv.hooks });
      if (argv.format === 'json') return printJson('hooks uninstall', true, report);
      printText(hooksUninstallText(report));
    }),
});

const statusCommand = tableCommand(declaration('hooks status'), {
  handler: (argv) =>
    withBrv('hooks status', argv, async (brv) => {
      const report = await brv.setup.hooksStatus();
      if (argv.format === 'json') return printJson('hooks status', true, report);
      printText(hooksStatusText(report));
    }),
});

async function runPreCommit(brv: Brv, argv: RunOptions): Promise<void> {
  const indexEnv = cliIo().env.GIT_INDEX_FILE;
  const indexFile = indexEnv ? path.resolve(cliIo().cwd, indexEnv) : undefined;
  const decision = await brv.setup.preCommit({ cacheOnly: argv['cache-only'], indexFile });
  if (decision.mode === undefined) {
    if (argv.format === 'json') printJson('hooks run', true, { hook: argv.hook, cache: decision.cache });
    return;
  }
  const { mode, stale, blocked } = decision;
  if (argv.format === 'json') {
    printJson('hooks run', true, { hook: argv.hook, mode, stale, blocked });
  } else if (stale.length > 0) {
    note(staleWarning(stale, mode).trimEnd());
  }
  if (blocked) setExitCode(EXIT_FAILURE);
}

async function runIntegration(brv: Brv, argv: RunOptions): Promise<void> {
  const { before, after, merge } = await brv.sharing.integrateFetched(cliActor());
  if (argv.format === 'json')
    return printJson('hooks run', true, { hook: argv.hook, integrated: true, before: before ?? null, after: after ?? null, result: merge });
  const text = integratedNote(brv.branch, before, after, merge, merge?.held?.source);
  if (text) note(text);
}

const runCommand = tableCommand<RunOptions>(declaration('hooks run'), {
  handler: async (argv) => {
    // A hook must never fail the user's git command because of brv: errors are one line, exit 0.
    if (cliIo().env.BRV_SKIP_HOOKS === '1') return;
    if (argv.hook === 'post-checkout' && argv.args?.[2] !== '1') return; // file checkouts: nothing to do
    let brv: Brv | undefined;
    try {
      brv = await (await cliService()).open(cliCwd(argv.C));
      if (argv.hook === 'pre-commit') await runPreCommit(brv, argv);
      else await runIntegration(brv, argv);
    } catch (error) {
      const message = (error as Error)?.message ?? String(error);
      if (argv.format === 'json')
        printJson('hooks run', false, { error: { kind: (error as { kind?: ErrorKind }).kind ?? 'internal-error', message } });
      else note(`brv: ${argv.hook} hook skipped: ${message.split('\n')[0]}`);
      setExitCode(0);
    } finally {
      brv?.close();
    }
  },
});

export const hooksCommand = tableCommand(declaration('hooks'), {
  subcommands: [installCommand, uninstallCommand, statusCommand, runCommand],
});
