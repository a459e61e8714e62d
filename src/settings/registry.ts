import { reviewRef } from '../base/ref-names.js';
/**
 * brv's settings: git config keys under `brv.*` (DESIGN §2.8), in the repository's config or, as
 * user-wide defaults, the global one. Only keys that brv's code reads are listed; the registry is the
 * one place that knows their types, defaults and allowed values.
 */
export type SettingType = 'bool' | 'int' | 'enum' | 'string';
export type SettingValue = boolean | number | string;

export interface SettingSpec {
  /** The key without the `brv.` prefix, as people write it: `review.enabled`. */
  key: string;
  type: SettingType;
  default: SettingValue;
  /** int: inclusive bounds. */
  min?: number;
  max?: number;
  /** enum: the allowed values. */
  choices?: readonly string[];
  description: string;
}

export const SETTINGS: readonly SettingSpec[] = [
  {
    key: 'review.enabled',
    type: 'bool',
    default: true,
    description: `Open a review (${reviewRef('<id>')}) for high-impact curates, deletions and merges that kept two versions`,
  },
  {
    key: 'review.gate',
    type: 'bool',
    default: false,
    description: 'Hold high-impact curates on their review ref until approved, instead of landing them at once',
  },
  {
    key: 'hooks.preCommit',
    type: 'enum',
    choices: ['warn', 'block'],
    default: 'warn',
    description: 'What the pre-commit hook does when staged code touches files a topic cites: warn, or block the commit',
  },
  {
    key: 'llm.timeout',
    type: 'int',
    default: 60,
    min: 1,
    max: 3600,
    description: 'Seconds a model provider may stay silent (no answer, no streamed text) before the call fails with llm-timeout',
  },
  {
    key: 'llm.retries',
    type: 'int',
    default: 2,
    min: 0,
    max: 10,
    description: 'Retries of a failed model call (rate limit, 5xx, network), with exponential backoff that honours Retry-After',
  },
  {
    key: 'retrieval.hybrid',
    type: 'bool',
    // Off until an embedding model earns it: with the one measured here (docs/archive/bench-notebook-2026.md, "Hybrid
    // retrieval") hybrid fell below lexical on some categories of both corpora's validate halves.
    default: false,
    description:
      'With an embedding model connected, rank query and search results by the lexical ranking fused with embedding similarity (off: lexical only; --hybrid asks for one query)',
  },
  {
    key: 'sync.holdRemovals',
    type: 'bool',
    default: true,
    description:
      'Hold incoming knowledge (pull, sync, git hooks, merging a remote branch) that would delete or empty many topics as a review instead of applying it (false: apply it, only listing what it removes)',
  },
  {
    key: 'sync.removalLimit',
    type: 'int',
    default: 10,
    min: 0,
    max: 100000,
    description: 'Hold incoming knowledge that removes (deletes or empties) more than this many topics; 0 holds every removal',
  },
  {
    key: 'sync.removalShare',
    type: 'int',
    default: 20,
    min: 0,
    max: 100,
    description:
      'Also hold it when it removes more than this percentage of the topics here and more than one topic (removing every topic is always held); 100 turns this rule off',
  },
  {
    key: 'sync.requireSigned',
    type: 'bool',
    default: false,
    description:
      "Take fetched knowledge only when every commit new to this clone has a good signature by a key in git's gpg.ssh.allowedSignersFile; the rest waits as a review naming who made it and why it was held",
  },
];

/** The git config section every setting lives in. */
export const SECTION = 'brv';

export function gitKey(spec: SettingSpec): string {
  return `${SECTION}.${spec.key}`;
}

/**
 * The setting a user named. Git compares section and variable names case-insensitively, so brv does
 * too; the `brv.` prefix people copy from `git config` is accepted.
 */
export function findSetting(name: string): SettingSpec | undefined {
  const key = name.toLowerCase().startsWith(`${SECTION}.`) ? name.slice(SECTION.length + 1) : name;
  return SETTINGS.find((spec) => spec.key.toLowerCase() === key.toLowerCase());
}

/** What a setting accepts, for messages and help. */
export function describeType(spec: SettingSpec): string {
  switch (spec.type) {
    case 'bool':
      return 'true or false';
    case 'int':
      return `an integer from ${spec.min ?? '-∞'} to ${spec.max ?? '∞'}`;
    case 'enum':
      return `one of ${spec.choices!.join(', ')}`;
    default:
      return 'text';
  }
}

export type ParsedSetting = { ok: true; value: SettingValue } | { ok: false; message: string };

const TRUE = /^(true|yes|on|1)$/i;
const FALSE = /^(false|no|off|0)$/i;

/**
 * Parses a value typed by a user (`brv settings set`) or stored in git config. Booleans take git's
 * spellings (true/yes/on/1, false/no/off/0); enums are matched case-insensitively on input and stored
 * canonical, because the code that reads them compares exactly.
 */
export function parseSetting(spec: SettingSpec, raw: string): ParsedSetting {
  const text = raw.trim();
  const invalid = (): ParsedSetting => ({ ok: false, message: `${spec.key} must be ${describeType(spec)}, not "${raw}".` });
  switch (spec.type) {
    case 'bool':
      if (TRUE.test(text)) return { ok: true, value: true };
      if (FALSE.test(text)) return { ok: true, value: false };
      return invalid();
    case 'int': {
      if (!/^[+-]?\d+$/.test(text)) return invalid();
      const value = Number(text);
      if ((spec.min !== undefined && value < spec.min) || (spec.max !== undefined && value > spec.max)) return invalid();
      return { ok: true, value };
    }
    case 'enum': {
      const choice = spec.choices!.find((c) => c.toLowerCase() === text.toLowerCase());
      return choice === undefined ? invalid() : { ok: true, value: choice };
    }
    default:
      return { ok: true, value: raw };
  }
}

/**
 * How brv's code reads a stored value: a value it does not recognise behaves as the default (the
 * review policy and the pre-commit hook both fall back to it), so `list` and `get` report the default
 * for it too, with the stored text in `invalid`.
 */
export function readStored(spec: SettingSpec, raw: string): { value: SettingValue; invalid?: string } {
  if (spec.type === 'enum') return spec.choices!.includes(raw.trim()) ? { value: raw.trim() } : { value: spec.default, invalid: raw };
  const parsed = parseSetting(spec, raw);
  return parsed.ok ? { value: parsed.value } : { value: spec.default, invalid: raw };
}
