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
  alias?: string;
  hidden?: boolean;
  requiresArg?: boolean;
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
