import type { Brv } from '../../service/brv.js';
import type { GlobalSettings } from '../../service/global-settings.js';
import { cliService, reportingErrors, withBrv, type GlobalOptions } from '../context.js';
import { EXIT_USAGE, printError, printJson, printText } from '../output.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

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

const listCommand = tableCommand<SettingsOptions>(declaration('settings list'), {
  handler: (argv) => withSettings('settings list', argv, (settings) => printList(settings, argv, 'settings list')),
});

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

const getCommand = tableCommand<KeyOptions>(declaration('settings get'), {
  handler: (argv) =>
    withSettings('settings get', argv, async (settings) => {
      const state = await settings.setting({ key: argv.key });
      if (argv.format === 'json') return printJson('settings get', true, { key: state.key, value: state.value, source: state.source });
      printText((await import('../../views/settings.js')).settingText(state));
    }),
});

const setCommand = tableCommand<SetOptions>(declaration('settings set'), {
  handler: (argv) =>
    withSettings('settings set', argv, async (settings) => {
      const result = await settings.setSetting({ key: argv.key, value: String(argv.value) });
      if (argv.format === 'json') return printJson('settings set', true, result);
      printText((await import('../../views/settings.js')).settingSetText(result, argv.global));
    }),
});

const resetCommand = tableCommand<KeyOptions>(declaration('settings reset'), {
  handler: (argv) =>
    withSettings('settings reset', argv, async (settings) => {
      const { key, scope, now } = await settings.resetSetting({ key: argv.key });
      if (argv.format === 'json') return printJson('settings reset', true, { key, scope });
      printText((await import('../../views/settings.js')).settingResetText(key, now, argv.global));
    }),
});

export const settingsCommand = tableCommand<SettingsOptions>(declaration('settings'), {
  subcommands: [listCommand, getCommand, setCommand, resetCommand],
  handler: (argv) => {
    if (argv.command !== undefined) {
      const message = `Unknown settings command "${argv.command}": use list, get <key>, set <key> <value> or reset <key>.`;
      return printError('settings', argv.format, 'usage', `${message}${argv.format === 'text' ? ' (see --help)' : ''}`, EXIT_USAGE);
    }
    return withSettings('settings', argv, (settings) => printList(settings, argv, 'settings'));
  },
});
