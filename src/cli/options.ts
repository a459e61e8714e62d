/**
 * Options are declared once, as data: yargs builds its parser and `--help` from these tables, and the
 * fast path for agent commands (`fast-args.ts`) parses the same tables without loading yargs.
 */
export interface OptionSpec {
  /** Without a type (and without choices) yargs accepts anything; the fast path leaves such options to yargs. */
  type?: 'string' | 'number' | 'boolean';
  describe?: string;
  default?: string | number | boolean;
  choices?: readonly string[];
  array?: boolean;
  /** With `array`: values per occurrence. `nargs: 1` makes a repeatable option (`-f a -f b`) that never takes the words after its value. */
  nargs?: number;
  alias?: string;
  hidden?: boolean;
  requiresArg?: boolean;
  /** A number option's smallest and largest allowed value (whole numbers only when either is set). */
  min?: number;
  max?: number;
  /** false: not inherited by the command's sub-commands (yargs' default is to inherit). */
  global?: boolean;
}

export type OptionTable = Readonly<Record<string, OptionSpec>>;

/** Options every command takes. */
export const GLOBAL_OPTIONS = {
  format: {
    choices: ['text', 'json'],
    default: 'text',
    describe: 'Output format (json: one line, for agents and scripts)',
    requiresArg: true,
  },
  C: { type: 'string', describe: 'Run as if brv was started in this directory', requiresArg: true },
} as const satisfies OptionTable;

/** A command line our own checks refuse: a usage error (exit 2), reported like yargs' own. */
export class ArgumentCheckError extends Error {}

/** How a number option's allowed range is said in messages and help. */
function rangeText(spec: OptionSpec): string {
  if (spec.min !== undefined && spec.max !== undefined) return `a whole number from ${spec.min} to ${spec.max}`;
  if (spec.min !== undefined) return `a whole number of at least ${spec.min}`;
  return spec.max !== undefined ? `a whole number up to ${spec.max}` : 'a number';
}

/** Whether a value given for a number option is within its declared range. */
export function inRange(spec: OptionSpec, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  if (spec.min === undefined && spec.max === undefined) return true;
  return Number.isInteger(value) && (spec.min === undefined || value >= spec.min) && (spec.max === undefined || value <= spec.max);
}

/**
 * A yargs check for a command's option table: every number option holds a number in its range
 * (yargs reads `--limit abc` as NaN and `--limit 500` as 500 and would run the command anyway).
 */
export function checkNumbers(table: OptionTable): (argv: Record<string, unknown>) => true {
  return (argv) => {
    for (const [name, spec] of Object.entries(table)) {
      if (spec.type !== 'number') continue;
      const values = Array.isArray(argv[name]) ? (argv[name] as unknown[]) : [argv[name]];
      for (const value of values)
        if (value !== undefined && !(typeof value === 'number' && inRange(spec, value)))
          throw new ArgumentCheckError(
            `${name.length === 1 ? '-' : '--'}${name} needs ${rangeText(spec)}; got ${JSON.stringify(String(value))}.`,
          );
    }
    return true;
  };
}
