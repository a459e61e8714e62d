/**
 * Where a command spends its time, for BRV_TRACE: named marks, kept only once a front end has turned
 * tracing on, and a monotonic clock for durations. Neither loads Node's perf_hooks (the `performance`
 * global), which costs a command ~1.5 ms here when nothing reads the marks (docs/archive/bench-notebook-2026.md, "Warm
 * path, round 4").
 */
let tracing = false;

/** Marks are kept from now on (`performance.getEntriesByType('mark')` lists them). */
export function startTracing(): void {
  tracing = true;
}

/** A named point in time, when tracing. */
export function mark(name: string): void {
  if (tracing) performance.mark(name);
}

/** Milliseconds on a monotonic clock (for durations: its origin is arbitrary). */
export function monotonicNow(): number {
  const [seconds, nanoseconds] = process.hrtime();
  return seconds * 1000 + nanoseconds / 1e6;
}
