import { BrvError } from '../base/errors.js';
import type { GitRepository } from '../git/repository.js';
import type { GlobalGitConfig } from '../git/global-config.js';
import {
  SECTION,
  SETTINGS,
  findSetting,
  gitKey,
  parseSetting,
  readStored,
  type SettingSpec,
  type SettingType,
  type SettingValue,
} from './registry.js';

export type SettingSource = 'default' | 'repository' | 'global';
export type SettingScope = 'repository' | 'global';

/** A repository's git config, or (for `--global` outside any repository) only the global one. */
type ConfigAccess = Pick<GitRepository, 'configList' | 'configSet' | 'configUnset'> | GlobalGitConfig;

export interface SettingState {
  key: string;
  value: SettingValue;
  default: SettingValue;
  source: SettingSource;
  type: SettingType;
  description: string;
  /** The values an `enum` setting takes. */
  choices?: readonly string[];
  /** An integer setting's smallest and largest allowed value (the dashboard bounds its input by them). */
  min?: number;
  max?: number;
  /** A stored value brv does not understand (it behaves as the default); absent when valid. */
  invalid?: string;
}

export interface ScopeOptions {
  /** Only the user's global git config (`git config --global`), not the repository's. */
  global?: boolean;
}

/**
 * Whether a key git listed is this setting. Git lower-cases the section and variable names it
 * reports but keeps a subsection as written, and so compares it: `brv.Review.gate` is another key.
 */
function isKey(spec: SettingSpec, listed: string): boolean {
  const key = gitKey(spec);
  const dot = key.lastIndexOf('.');
  return listed === `${SECTION}${key.slice(SECTION.length, dot)}.${key.slice(dot + 1).toLowerCase()}`;
}

/** The settings brv's code acts on, typed; the keys are the registry's (without `brv.`). */
export interface EffectiveSettings {
  'review.enabled': boolean;
  'review.gate': boolean;
  'hooks.preCommit': 'warn' | 'block';
  'llm.timeout': number;
  'llm.retries': number;
  'retrieval.hybrid': boolean;
  'sync.holdRemovals': boolean;
  'sync.removalLimit': number;
  'sync.removalShare': number;
  'sync.requireSigned': boolean;
}

/**
 * The effective value of every setting, as brv's code reads them: the last value git lists (system,
 * global, then the repository's, as `git config --get` does), a stored value brv does not understand
 * behaving as the default. One `git config` run for all of them.
 */
export async function readSettings(repo: GitRepository): Promise<EffectiveSettings> {
  const entries = await repo.configList(`^${SECTION}\\.`);
  const settings: Record<string, SettingValue> = {};
  for (const spec of SETTINGS) {
    const raw = entries.filter((e) => isKey(spec, e.key)).at(-1)?.value;
    settings[spec.key] = raw === undefined ? spec.default : readStored(spec, raw).value;
  }
  return settings as unknown as EffectiveSettings;
}

/** The setting a user named, or a `unknown-setting` error naming it and the known ones. */
function requireSetting(name: string): SettingSpec {
  const spec = findSetting(name);
  if (!spec) {
    throw new BrvError('unknown-setting', `Unknown setting "${name}". Known settings: ${SETTINGS.map((s) => s.key).join(', ')}.`, {
      key: name,
    });
  }
  return spec;
}

/**
 * Every setting with its effective value and where it came from. Git lists config from the widest
 * scope to the narrowest and the last value wins, as `git config --get` does; an entry not found in the
 * global config comes from the repository (its config, a worktree's, or `git -c`).
 */
export async function listSettings(repo: ConfigAccess, options: ScopeOptions = {}): Promise<SettingState[]> {
  const pattern = `^${SECTION}\\.`;
  const [visible, global] = await Promise.all([
    options.global ? Promise.resolve(undefined) : repo.configList(pattern),
    repo.configList(pattern, { global: true }),
  ]);
  return SETTINGS.map((spec) => {
    const globalValues = global.filter((e) => isKey(spec, e.key));
    const values = visible ? visible.filter((e) => isKey(spec, e.key)) : globalValues;
    const state = (value: SettingValue, source: SettingSource, invalid?: string): SettingState => ({
      key: spec.key,
      value,
      default: spec.default,
      source,
      type: spec.type,
      description: spec.description,
      ...(spec.choices ? { choices: spec.choices } : {}),
      ...(spec.min !== undefined ? { min: spec.min } : {}),
      ...(spec.max !== undefined ? { max: spec.max } : {}),
      ...(invalid !== undefined ? { invalid } : {}),
    });
    if (values.length === 0) return state(spec.default, 'default');
    const stored = readStored(spec, values[values.length - 1]!.value);
    return state(stored.value, values.length > globalValues.length ? 'repository' : 'global', stored.invalid);
  });
}

export async function getSetting(repo: ConfigAccess, name: string, options: ScopeOptions = {}): Promise<SettingState> {
  const spec = requireSetting(name);
  return (await listSettings(repo, options)).find((s) => s.key === spec.key)!;
}

/**
 * Validates and stores a setting in the repository's git config, or the global one. The value is
 * stored in canonical form (`true`, `block`); any earlier values of the key in that scope are replaced.
 */
export async function setSetting(
  repo: ConfigAccess,
  name: string,
  raw: string,
  options: ScopeOptions = {},
): Promise<{ key: string; value: SettingValue; scope: SettingScope }> {
  const spec = requireSetting(name);
  const parsed = parseSetting(spec, raw);
  if (!parsed.ok) throw new BrvError('invalid-setting-value', parsed.message, { key: spec.key, value: raw });
  const scope = { global: options.global === true };
  // A key set several times (git config --add) cannot be overwritten with one value: clear it first.
  await repo.configUnset(gitKey(spec), { ...scope, valuePattern: '.*' });
  await repo.configSet(gitKey(spec), String(parsed.value), scope);
  return { key: spec.key, value: parsed.value, scope: options.global ? 'global' : 'repository' };
}

/** Removes a setting from one scope; what remains visible (the global value or the default) applies. */
export async function resetSetting(
  repo: ConfigAccess,
  name: string,
  options: ScopeOptions = {},
): Promise<{ key: string; scope: SettingScope }> {
  const spec = requireSetting(name);
  await repo.configUnset(gitKey(spec), { global: options.global === true, valuePattern: '.*' });
  return { key: spec.key, scope: options.global ? 'global' : 'repository' };
}
