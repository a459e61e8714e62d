import type { DoctorReport } from '../setup/doctor.js';

const MARK = { ok: '✓', warn: '!', fail: '✗' } as const;

/** `brv doctor`: one line a check (its mark, name and finding), its fix under it, then the verdict. */
export function doctorText(report: DoctorReport): string {
  const lines = report.checks.map(
    (c) => `${MARK[c.status]} ${c.name.padEnd(13)} ${c.message}${c.fix ? `\n  ${''.padEnd(13)} fix: ${c.fix}` : ''}`,
  );
  lines.push('', report.ok ? 'brv is ready.' : 'brv needs attention: see the fixes above.');
  return lines.join('\n');
}
