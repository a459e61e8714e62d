// What yargs does not check of the options the command table declares (src/views/command-table.ts):
// number ranges, for yargs' builders (table-yargs.ts) and the fast path (fast-args.ts) alike.
import type { OptionDecl, OptionTable } from '../views/agent-commands.js';

/** A command line our own checks refuse: a usage error (exit 2), reported like yargs' own. */
export class ArgumentCheckError extends Error {}

/** How a number option's allowed range is said in messages and help. */
function rangeText(spec: OptionDecl): string {
  if (spec.min !== undefined && spec.max !== undefined) return `a whole number from ${spec.min} to ${spec.max}`;
  if (spec.min !== undefined) return `a whole number of at least ${spec.min}`;
  return spec.max !== undefined ? `a whole number up to ${spec.max}` : 'a number';
}

/** Whether a value given for a number option is within its declared range. */
export function inRange(spec: OptionDecl, value: number): boolean {
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
