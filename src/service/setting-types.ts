import { describeType, findSetting } from '../settings/registry.js';
import type { SettingState } from './setup.js';

/**
 * What a setting accepts, in words ("true or false", "an integer from 1 to 3600", "one of warn, block"),
 * for views of `SettingState` results; undefined for a key brv does not know. Loads the settings
 * registry: a view using it is imported lazily, like the registry.
 */
export function settingAccepts(state: Pick<SettingState, 'key'>): string | undefined {
  const spec = findSetting(state.key);
  return spec && describeType(spec);
}
