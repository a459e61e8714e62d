// Preloaded (NODE_OPTIONS=--require) into brv processes by test/cli/maintenance.test.ts. It acts only
// in a `brv maintenance` process (the background child a query starts): BRV_TEST_MAINTENANCE_HOLD_MS
// makes it wait that long before it starts (holding the lock its query took for it);
// BRV_TEST_MAINTENANCE_KILL_AT kills it with SIGKILL just before it renames a file whose destination
// contains that text into place (a segment, a docstore, the manifest): a kill -9 mid-way, at a known point.
if (process.argv.includes('maintenance')) {
  const hold = Number(process.env.BRV_TEST_MAINTENANCE_HOLD_MS || 0);
  if (hold > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, hold);
  const killAt = process.env.BRV_TEST_MAINTENANCE_KILL_AT;
  if (killAt) {
    const fsp = require('node:fs/promises');
    const rename = fsp.rename;
    fsp.rename = (from, to) => {
      if (String(to).includes(killAt)) process.kill(process.pid, 'SIGKILL');
      return rename(from, to);
    };
  }
}
