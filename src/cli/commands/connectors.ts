import type { ConnectorRequest, ConnectorType } from '../../service/service.js';
import { cliService, reportingErrors, type GlobalOptions, cliCwd } from '../context.js';
import { printJson, printText } from '../output.js';
import { agentsText, connectorStatusText, installText, uninstallText } from '../../views/connectors.js';
import { adoptNotes } from '../../views/setup.js';
import { stoppingGit } from '../stop-git-with-brv.js';
import { withSyncProgress } from './vc-remote.js';
import { tableCommand } from '../table-yargs.js';
import { declaration } from '../../views/command-table.js';

interface AgentOptions extends GlobalOptions {
  agent: string;
  type?: ConnectorType;
  global?: boolean;
}

interface StatusOptions extends GlobalOptions {
  agent?: string;
  global?: boolean;
}

function connectorRequest(argv: AgentOptions): ConnectorRequest {
  return { cwd: cliCwd(argv.C), global: argv.global, agent: argv.agent, type: argv.type };
}

const listCommand = tableCommand(declaration('connectors list'), {
  handler: (argv) =>
    reportingErrors('connectors list', argv, async () => {
      const agents = await (await cliService()).agents();
      if (argv.format === 'json') return printJson('connectors list', true, { agents });
      printText(agentsText(agents));
    }),
});

const installCommand = tableCommand<AgentOptions>(declaration('connectors install'), {
  handler: stoppingGit((argv) =>
    reportingErrors('connectors install', argv, async () => {
      const service = await cliService();
      const result = await withSyncProgress(argv, (onProgress) => service.installConnector({ ...connectorRequest(argv), onProgress }));
      if (argv.format === 'json') return printJson('connectors install', true, result);
      printText([installText(result), ...adoptNotes(result.adopted)].join('\n'));
    }),
  ),
});

const uninstallCommand = tableCommand<AgentOptions>(declaration('connectors uninstall'), {
  handler: (argv) =>
    reportingErrors('connectors uninstall', argv, async () => {
      const result = await (await cliService()).uninstallConnector(connectorRequest(argv));
      if (argv.format === 'json') return printJson('connectors uninstall', true, result);
      printText(uninstallText(result));
    }),
});

const statusCommand = tableCommand<StatusOptions>(declaration('connectors status'), {
  handler: (argv) =>
    reportingErrors('connectors status', argv, async () => {
      const { scopes, connectors: entries } = await (
        await cliService()
      ).connectorStatus({
        cwd: cliCwd(argv.C),
        global: argv.global,
        agent: argv.agent,
      });
      if (argv.format === 'json') return printJson('connectors status', true, { scopes, connectors: entries });
      printText(connectorStatusText(scopes, entries));
    }),
});

export const connectorsCommand = tableCommand(declaration('connectors'), {
  subcommands: [listCommand, installCommand, uninstallCommand, statusCommand],
});
