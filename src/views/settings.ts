import { settingAccepts } from '../service/setting-types.js';
import type { SettingState } from '../service/setup.js';

function where(global: boolean | undefined): string {
  return global ? 'your global git config' : "this repository's git config";
}

function sourceText(state: SettingState): string {
  const origin = state.source === 'default' ? 'default' : `${state.source}, default ${String(state.default)}`;
  return state.invalid !== undefined ? `${origin}; stored value "${state.invalid}" is not valid and is ignored` : origin;
}

/** `brv settings get`: the value and where it comes from. */
export function settingText(state: SettingState): string {
  return `${state.key} = ${String(state.value)}  (${sourceText(state)})`;
}

/** `brv settings list` (and `brv settings`): every setting with its meaning and type, then how to change one. */
export function settingsText(settings: SettingState[]): string {
  const lines: string[] = [];
  for (const state of settings) {
    const accepts = settingAccepts(state);
    lines.push(settingText(state));
    lines.push(`    ${state.description}${accepts ? `; ${accepts}` : ''}.`);
  }
  lines.push('', 'Change one with brv settings set <key> <value> [--global]; undo with brv settings reset <key> [--global].');
  return lines.join('\n');
}

/** `brv settings set`. */
export function settingSetText(result: { key: string; value: unknown }, global: boolean | undefined): string {
  return `Set ${result.key} = ${String(result.value)} in ${where(global)} (brv.${result.key}).`;
}

/** `brv settings reset`: what the setting is now. */
export function settingResetText(key: string, now: SettingState, global: boolean | undefined): string {
  return `Reset ${key} in ${where(global)}; it is now ${String(now.value)} (${sourceText(now)}).`;
}
