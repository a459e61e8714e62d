// Preloaded (NODE_OPTIONS=--require) into brv processes by test/process/maintenance.test.ts. It acts only
// in a `brv maintenance` process (the background child a query starts): BRV_TEST_MAINTENANCE_HOLD_UNTIL
// makes it wait, holding the lock its query took for it, until that file exists (the test says when:
// a fixed time is too short on a loaded machine);
// BRV_TEST_MAINTENANCE_KILL_AT kills it with SIGKILL just before it renames a file whose destination
// contains that text into place (a segment, a docstore, the manifest): a kill -9 mid-way, at a known point.
if (process.argv.includes('maintenance')) {
  const until = process.env.BRV_TEST_MAINTENANCE_HOLD_UNTIL;
  if (until) {
    const { existsSync } = require('node:fs');
    const sleep = new Int32Array(new SharedArrayBuffer(4));
    for (let waited = 0; !existsSync(until) && waited < 120_000; waited += 20) Atomics.wait(sleep, 0, 0, 20);
  }
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
