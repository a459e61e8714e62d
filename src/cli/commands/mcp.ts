import type { CommandModule } from 'yargs';
import type { GlobalOptions } from '../context.js';

export const mcpCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'mcp',
  describe: "Serve this repository's knowledge to an agent over MCP (stdio): tools brv-query, brv-curate, brv-search, brv-read, brv-list",
  handler: async (argv) => {
    const [{ serveStdio }, { readTemplate }, { brvVersion }] = await Promise.all([
      import('../../mcp/serve.js'),
      import('../../templates/templates.js'),
      import('../../package-root.js'),
    ]);
    const instructions = await readTemplate('mcp-workflow.md').catch(() => undefined);
    const session = await serveStdio({ launchDir: argv.C ?? process.cwd(), version: brvVersion(), instructions });
    // The client ending the session (closing our stdin, dying, or a signal) ends the server: running
    // calls get a moment to finish, repositories close their git processes, and the process exits, so
    // nothing an abandoned call still holds keeps it (or a git child) alive.
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, session.stop);
    await session.finished;
    process.exit(0);
  },
};
