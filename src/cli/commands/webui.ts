import path from 'node:path';
import { cliService, reportingErrors, type GlobalOptions, cliCwd } from '../context.js';
import { note, printJson, printText } from '../output.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface WebuiOptions extends GlobalOptions {
  port?: number;
  open: boolean;
  newToken: boolean;
}

/** How long stopping may take before the process exits anyway (a git that hangs must not keep it). */
const STOP_GRACE_MS = 3000;

/**
 * `brv webui`: the local dashboard. Serves until Ctrl-C / SIGTERM, then stops accepting, ends the
 * live-event streams, closes the repositories (their git processes) and exits 0. The server code is
 * imported here only, so no other command loads it.
 */
export const webuiCommand = tableCommand<WebuiOptions>(declaration('webui'), {
  handler: (argv) =>
    reportingErrors('webui', argv, async () => {
      // Listening for the stop signals before anything starts: one that comes early still stops cleanly.
      const stopped = new Promise<void>((resolve) => {
        for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => resolve());
      });
      const [{ startWebServer, DEFAULT_PORT }, { webuiText, openerNotice }, service] = await Promise.all([
        import('../../web/server.js'),
        import('../../views/webui.js'),
        cliService(),
      ]);
      const server = await startWebServer({
        service,
        launchDir: path.resolve(cliCwd(argv.C)),
        port: argv.port ?? DEFAULT_PORT,
        strictPort: argv.port !== undefined,
        newToken: argv.newToken,
      });
      if (argv.format === 'json') printJson('webui', true, { url: server.url, port: server.port });
      else printText(webuiText({ url: server.url, port: server.port, wanted: argv.port ?? DEFAULT_PORT }));
      if (argv.open) {
        // A one-time login link, not the printed URL: the opener's command line is readable by other
        // local users (/proc/<pid>/cmdline), and the session token must never be on one.
        const opened = await service.openUrl({ url: server.oneTimeUrl() });
        if (!opened.opened) note(openerNotice(opened.opener, opened.problem));
      }
      await stopped;
      const timer = setTimeout(() => process.exit(0), STOP_GRACE_MS);
      await server.close().catch(() => {});
      clearTimeout(timer);
      service.terminateGitProcesses();
      process.exit(0);
    }),
});
