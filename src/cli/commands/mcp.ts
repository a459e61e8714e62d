import type { CommandModule } from 'yargs';
import type { GlobalOptions } from '../context.js';

export const mcpCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'mcp',
  describe: "Serve this repository's knowledge to an agent over MCP (stdio): tools brv-query, brv-curate, brv-search, brv-read, brv-list",
  handler: async (argv) => {
    const [{ StdioServerTransport }, { createMcpServer }, { readTemplate }, { brvVersion }] = await Promise.all([
      import('@modelcontextprotocol/sdk/server/stdio.js'),
      import('../../mcp/server.js'),
      import('../../templates/templates.js'),
      import('../../package-root.js'),
    ]);
    const instructions = await readTemplate('mcp-workflow.md').catch(() => undefined);
    const { server, pool } = createMcpServer({ launchDir: argv.C ?? process.cwd(), version: brvVersion(), instructions });
    // The client ending the session (closing our stdin) ends the server and its git processes.
    let stopped = false;
    const stop = () => {
      if (stopped) return;
      stopped = true;
      pool.close();
      void server.close().catch(() => {});
    };
    server.server.onclose = stop;
    process.stdin.on('end', stop);
    await server.connect(new StdioServerTransport());
  },
};
