import { cliService, cliCwd } from '../context.js';
import { cliIo } from '../io.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

export const mcpCommand = tableCommand(declaration('mcp'), {
  handler: async (argv) => {
    const [{ serveStdio }, texts, service] = await Promise.all([
      import('../../mcp/serve.js'),
      import('../../service/texts.js'),
      cliService(),
    ]);
    const [version, instructions] = await Promise.all([texts.brvVersion(), texts.mcpInstructions()]);
    const off = cliIo().env.BRV_NO_AUTO_MAINTENANCE;
    const session = await serveStdio({
      service,
      launchDir: cliCwd(argv.C),
      version,
      instructions,
      // Search indexes a query leaves due are compacted between calls, unless switched off as for the CLI.
      maintenance: off === undefined || off === '' || off === '0',
    });
    // The client ending the session (closing our stdin, dying, or a signal) ends the server: running
    // calls get a moment to finish, repositories close their git processes, and the process exits, so
    // nothing an abandoned call still holds keeps it (or a git child) alive.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, session.stop);
    await session.finished;
    process.exit(0);
  },
});
