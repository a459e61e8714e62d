import type { Argv, CommandModule } from 'yargs';
import type { Brv } from '../../service/brv.js';
import type { GlobalSettings } from '../../service/global-settings.js';
import { cliService, reportingErrors, withBrv, type GlobalOptions } from '../context.js';
import { EXIT_USAGE, printError, printJson, printText } from '../output.js';

interface SettingsOptions extends GlobalOptions {
  global?: boolean;
  command?: string;
}

interface KeyOptions extends SettingsOptions {
  key: string;
}

interface SetOptions extends KeyOptions {
  value: string;
}

const listCommand: CommandModule<GlobalOptions, SettingsOptions> = {
  command: 'list',
  describe: 'Every setting, its value and where the value comes from (default, repository or global)',
  handler: (argv) => withSettings('settings list', argv, (settings) => printList(settings, argv, 'settings list')),
};

/** Settings calls on this repository's git config, or with --global on the global one, which needs no repository. */
type Settings = Pick<GlobalSettings, 'settings' | 'setting' | 'setSetting' | 'resetSetting'>;

function withSettings(command: string, argv: SettingsOptions, run: (settings: Settings) => Promise<void>): Promise<void> {
  if (argv.global) return reportingErrors(command, argv, async () => run((await cliService()).globalSettings()));
  return withBrv(command, argv, (brv) => run(repositorySettings(brv)));
}

function repositorySettings(brv: Brv): Settings {
  return {
    settings: () => brv.setup.settings(),
    setting: (request) => brv.setup.setting(request),
    setSetting: (request) => brv.setup.setSetting(request),
    resetSetting: (request) => brv.setup.resetSetting(request),
  };
}

async function printList(source: Settings, argv: SettingsOptions, command: string): Promise<void> {
  const { settingsText } = await import('../../views/settings.js');
  const settings = await source.settings();
  if (argv.format === 'json') return printJson(command, true, { settings });
  printText(settingsText(settings));
}

const getCommand: CommandModule<GlobalOptions, KeyOptions> = {
  command: 'get <key>',
  describe: 'One setting: its value and where it comes from',
  builder: (y) => y.positional('key', { type: 'string', demandOption: true, describe: 'e.g. review.gate' }),
  handler: (argv) =>
    withSettings('settings get', argv, async (settings) => {
      const state = await settings.setting({ key: argv.key });
      if (argv.format === 'json') return printJson('settings get', true, { key: state.key, value: state.value, source: state.source });
      printText((await import('../../views/settings.js')).settingText(state));
    }),
};

const setCommand: CommandModule<GlobalOptions, SetOptions> = {
  command: 'set <key> <value>',
  describe: "Set a setting in this repository's git config (brv.<key>), or the global one with --global",
  builder: (y) =>
    y
      .positional('key', { type: 'string', demandOption: true, describe: 'e.g. review.gate' })
      .positional('value', { type: 'string', demandOption: true, describe: 'Checked against the setting’s type' })
      .example('$0 settings set review.gate true', 'Hold high-impact changes until approved')
      .example('$0 settings set hooks.preCommit block --global', 'Refuse such commits in every repository'),
  handler: (argv) =>
    withSettings('settings set', argv, async (settings) => {
      const result = await settings.setSetting({ key: argv.key, value: String(argv.value) });
      if (argv.format === 'json') return printJson('settings set', true, result);
      printText((await import('../../views/settings.js')).settingSetText(result, argv.global));
    }),
};

const resetCommand: CommandModule<GlobalOptions, KeyOptions> = {
  command: 'reset <key>',
  describe: "Remove a setting from this repository's git config (or the global one with --global)",
  builder: (y) => y.positional('key', { type: 'string', demandOption: true, describe: 'e.g. review.gate' }),
  handler: (argv) =>
    withSettings('settings reset', argv, async (settings) => {
      const { key, scope, now } = await settings.resetSetting({ key: argv.key });
      if (argv.format === 'json') return printJson('settings reset', true, { key, scope });
      printText((await import('../../views/settings.js')).settingResetText(key, now, argv.global));
    }),
};

export const settingsCommand: CommandModule<GlobalOptions, SettingsOptions> = {
  command: 'settings [command]',
  describe: 'Settings (git config brv.*): list, get <key>, set <key> <value>, reset <key>',
  builder: (y: Argv<GlobalOptions>) =>
    y
      .command(listCommand)
      .command(getCommand as never)
      .command(setCommand as never)
      .command(resetCommand as never)
      .option('global', { type: 'boolean', describe: "Your global git config (every repository's default), not this repository's" })
      .epilog(
        'Settings are git config keys under brv.* (git config brv.review.gate true works too); a repository value overrides a global one. ' +
          'Unknown keys and invalid values are refused.',
      ),
  handler: (argv) => {
    if (argv.command !== undefined) {
      const message = `Unknown settings command "${argv.command}": use list, get <key>, set <key> <value> or reset <key>.`;
      return printError('settings', argv.format, 'usage', `${message}${argv.format === 'text' ? ' (see --help)' : ''}`, EXIT_USAGE);
    }
    return withSettings('settings', argv, (settings) => printList(settings, argv, 'settings'));
  },
};
