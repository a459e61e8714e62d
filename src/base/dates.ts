/** Whether `day`, written YYYY-MM-DD, is a day of the calendar (2026-02-30 and 2026-13-45 are not). */
export function isCalendarDay(day: string): boolean {
  const match = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day);
  if (!match) return false;
  const [year, month, date] = [Number(match[1]), Number(match[2]) - 1, Number(match[3])];
  const parsed = new Date(0);
  parsed.setUTCFullYear(year, month, date);
  return parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month && parsed.getUTCDate() === date;
}
