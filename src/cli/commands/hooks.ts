import path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import type { ErrorKind } from '../../base/error-kinds.js';
import { HOOK_NAMES, type HookName } from '../../service/names.js';
import type { Brv } from '../../service/brv.js';
import { cliActor, cliService, withBrv, type GlobalOptions, cliCwd } from '../context.js';
import { EXIT_FAILURE, note, printJson, printText } from '../output.js';
import { stoppingGit } from '../stop-git-with-brv.js';
import { withSyncProgress } from './vc-remote.js';
import { hooksInstallText, hooksStatusText, hooksUninstallText, integratedNote, staleWarning } from '../../views/hooks.js';
import { cliIo, setExitCode } from '../io.js';

interface SelectOptions extends GlobalOptions {
  hooks?: string[];
}

interface RunOptions extends GlobalOptions {
  hook: HookName;
  args?: string[];
  'cache-only'?: boolean;
}

const selectHooks = <T>(y: Argv<T>) =>
  y.positional('hooks', {
    type: 'string',
    array: true,
    choices: HOOK_NAMES,
    describe: `Hooks to act on (default: all of ${HOOK_NAMES.join(', ')})`,
  });

const installCommand: CommandModule<GlobalOptions, SelectOptions> = {
  command: 'install [hooks..]',
  describe: 'Install brv into the git hooks git runs (core.hooksPath honoured); existing hooks are chained, never replaced',
  builder: (y) =>
    selectHooks(y)
      .example('$0 hooks install', 'post-merge, post-checkout and pre-commit')
      .example('$0 hooks install pre-commit', 'Only the staleness warning')
      .epilog(
        "post-merge and post-checkout integrate knowledge fetched by git pull (install adds brv's fetch refspecs to the remote they " +
          'merge from — the upstream, origin or the only remote — so that git pull fetches it); pre-commit warns when staged changes touch files that ' +
          'topics cite in <bv-files> (git config brv.hooks.preCommit block refuses such commits). brv adds a marked block to shell ' +
          'hooks and leaves other hooks (python, node, binaries) untouched, printing the line that chains brv from them. ' +
          'BRV_SKIP_HOOKS=1 turns the hooks off for one command. A brv error never fails the git command.',
      ),
  handler: stoppingGit((argv) =>
    withBrv('hooks install', argv, async (brv) => {
      const report = await withSyncProgress(argv, (onProgress) => brv.setup.installHooks({ hooks: argv.hooks, onProgress }));
      if (argv.format === 'json') return printJson('hooks install', true, report);
      printText(hooksInstallText(report));
    }),
  ),
};

const uninstallCommand: CommandModule<GlobalOptions, SelectOptions> = {
  command: 'uninstall [hooks..]',
  describe: "Remove brv's block from the hooks (the rest of each hook is kept as it was)",
  builder: (y) => selectHooks(y),
  handler: (argv) =>
    withBrv('hooks uninstall', argv, async (brv) => {
      const report = await brv.setup.uninstallHooks({ hooks: argv.hooks });
      if (argv.format === 'json') return printJson('hooks uninstall', true, report);
      printText(hooksUninstallText(report));
    }),
};

const statusCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'status',
  describe: 'Show, per hook, whether brv is installed, outdated or not, and the hooks directory git uses',
  handler: (argv) =>
    withBrv('hooks status', argv, async (brv) => {
      const report = await brv.setup.hooksStatus();
      if (argv.format === 'json') return printJson('hooks status', true, report);
      printText(hooksStatusText(report));
    }),
};

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

const runCommand: CommandModule<GlobalOptions, RunOptions> = {
  command: 'run <hook> [args..]',
  describe: false, // called by the installed hooks (or chained from hooks brv does not edit)
  builder: (y) =>
    y
      .positional('hook', { type: 'string', choices: HOOK_NAMES, demandOption: true, describe: 'The hook being run' })
      .positional('args', { type: 'string', array: true, describe: "The hook's own arguments" })
      .option('cache-only', { type: 'boolean', describe: 'pre-commit: only build the cited-files cache for the current brv tree' }),
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
};

export const hooksCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'hooks <command>',
  describe: 'Git hooks: integrate fetched knowledge after git pull, warn when a commit touches files topics cite',
  builder: (y: Argv<GlobalOptions>) =>
    y
      .command(installCommand)
      .command(uninstallCommand)
      .command(statusCommand)
      .command(runCommand)
      .demandCommand(1, 'Name a hooks command: install, uninstall or status.'),
  handler: () => {},
};
