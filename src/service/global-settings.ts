import { GlobalGitConfig } from '../git/global-config.js';
import type { GitProcesses } from '../git/processes.js';
import type { ResetSettingResult, SetSettingResult, SettingState } from './setup.js';

/**
 * Settings in the user's global git config, with no repository (`brv settings --global` anywhere,
 * from `BrvService.globalSettings`): the same checks and results as `brv.setup`'s settings calls
 * with `global: true`.
 */
export class GlobalSettings {
  private readonly config: GlobalGitConfig;

  constructor(processes: GitProcesses, home: string) {
    this.config = new GlobalGitConfig(processes, home);
  }

  async settings(): Promise<SettingState[]> {
    const { listSettings } = await import('../settings/settings.js');
    return listSettings(this.config, { global: true });
  }

  async setting(request: { key: string }): Promise<SettingState> {
    const { getSetting } = await import('../settings/settings.js');
    return getSetting(this.config, request.key, { global: true });
  }

  async setSetting(request: { key: string; value: string }): Promise<SetSettingResult> {
    const { setSetting } = await import('../settings/settings.js');
    return setSetting(this.config, request.key, request.value, { global: true });
  }

  async resetSetting(request: { key: string }): Promise<ResetSettingResult> {
    const { getSetting, resetSetting } = await import('../settings/settings.js');
    const result = await resetSetting(this.config, request.key, { global: true });
    return { ...result, now: await getSetting(this.config, result.key, { global: true }) };
  }
}
