import path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import type { ConnectorType } from '../../connectors/agents.js';
import type { ErrorKind } from '../../error-kinds.js';
import type { ConnectorScope, FileChange, InstallResult, StatusEntry, UninstallResult } from '../../connectors/connectors.js';
import { reportingErrors, withBrv, type GlobalOptions } from '../context.js';
import { printJson, printText } from '../output.js';

const TYPES = ['rules', 'mcp', 'skill', 'hook'] as const;

interface AgentOptions extends GlobalOptions {
  agent: string;
  type?: ConnectorType;
  global?: boolean;
}

interface StatusOptions extends GlobalOptions {
  agent?: string;
  global?: boolean;
}

const connectors = () => import('../../connectors/connectors.js');

/** Runs a command that needs no repository, with the same error envelope as withBrv. */
/** The project scope (this repository's work tree), or the home directory with --global (no repository needed). */
async function inScope(command: string, argv: AgentOptions, run: (scope: ConnectorScope) => Promise<void>): Promise<void> {
  if (argv.global) {
    return reportingErrors(command, argv, async () => run((await connectors()).globalScope()));
  }
  return withBrv(command, argv, async (brv) => run((await connectors()).projectScope(brv.repo.location)));
}

function shown(scope: { scope: string; root: string }, file: string): string {
  const relative = path.relative(scope.root, file);
  const posix = relative.split(path.sep).join('/');
  return scope.scope === 'global' ? `~/${posix}` : posix;
}

function describeScope(scope: { scope: string; root: string }): string {
  return scope.scope === 'global' ? `global, ${scope.root}` : `project, ${scope.root}`;
}

function changeLines(scope: { scope: string; root: string }, changes: readonly FileChange[], indent = '  '): string[] {
  return changes.map(
    (change) =>
      `${indent}${change.action.padEnd(13)} ${shown(scope, change.path)} (${change.target})${change.note ? ` — ${change.note}` : ''}`,
  );
}

const agentPositional = <T>(y: Argv<T>) =>
  y.positional('agent', { type: 'string', demandOption: true, describe: 'Agent id, name or alias (see brv connectors list), any case' });

const scopeOption = <T>(y: Argv<T>) =>
  y.option('global', {
    type: 'boolean',
    default: false,
    describe: "Use the agent's user-wide files under your home directory instead of this repository's",
  });

const listCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: ['list', '$0'],
  describe: 'Every agent brv connects to, its connector types (default marked *) and the files each one writes',
  handler: (argv) =>
    reportingErrors('connectors list', argv, async () => {
      const agents = (await connectors()).listAgents();
      if (argv.format === 'json') return printJson('connectors list', true, { agents });
      const lines: string[] = [];
      for (const agent of agents) {
        const aliases = agent.aliases.length > 0 ? `; alias ${agent.aliases.join(', ')}` : '';
        lines.push(`${agent.id} (${agent.name}${aliases})`);
        for (const type of agent.types) {
          const where = [
            type.project ? `project: ${type.project.join(' + ')}` : undefined,
            type.global ? `global: ${type.global.map((p) => `~/${p}`).join(' + ')}` : undefined,
            type.manual ? `manual: ${type.manual.where}` : undefined,
          ].filter(Boolean);
          lines.push(`  ${`${type.type}${type.default ? '*' : ''}`.padEnd(7)} ${where.join('   ')}`);
        }
      }
      lines.push('', 'Install with: brv connectors install <agent> [--type rules|mcp|skill|hook] [--global]');
      printText(lines.join('\n'));
    }),
};

function printInstall(result: InstallResult): void {
  if (result.status === 'manual') {
    const manual = result.manual!;
    printText(
      [
        `${result.name} keeps its MCP servers in its own settings, which brv does not edit. Add brv there:`,
        `  where: ${manual.where}`,
        `  guide: ${manual.guide}`,
        manual.config,
      ].join('\n'),
    );
    return;
  }
  const headline: Record<InstallResult['status'], string> = {
    installed: 'installed',
    updated: 'updated',
    unchanged: 'already installed, nothing to change',
    manual: 'manual',
  };
  printText(
    [`${result.name}: ${result.type} ${headline[result.status]} (${describeScope(result)})`, ...changeLines(result, result.changes)].join(
      '\n',
    ),
  );
}

const installCommand: CommandModule<GlobalOptions, AgentOptions> = {
  command: 'install <agent>',
  describe: "Connect an agent to brv: its rules file, MCP server entry, skill or prompt hook (default: the agent's default type)",
  builder: (y) =>
    scopeOption(agentPositional(y))
      .option('type', {
        choices: TYPES,
        describe: 'What to install (default: the agent\'s default type, marked * in "brv connectors list")',
      })
      .example('$0 connectors install claude-code', 'The brv skill in .claude/skills/brv/')
      .example('$0 connectors install codex --type rules', "brv's rules block in AGENTS.md")
      .example('$0 connectors install cursor --type mcp --global', 'The brv MCP server in ~/.cursor/mcp.json')
      .epilog(
        'Rules go between "<!-- BEGIN BRV RULES -->" and "<!-- END BRV RULES -->" lines with a "Generated by brv for <agent>" footer, so ' +
          'several agents can share AGENTS.md or CLAUDE.md and installing again replaces only that block. MCP configurations (JSON, TOML, ' +
          'YAML) are edited in place: other servers, comments and formatting are kept; a malformed, read-only or symlinked file is left ' +
          'untouched with an error. Project files stay inside this repository; files under your home directory are written only with ' +
          '--global. Installing again is a no-op when nothing changed.',
      ),
  handler: (argv) =>
    inScope('connectors install', argv, async (scope) => {
      const result = await (await connectors()).installConnector(scope, argv.agent, argv.type);
      if (argv.format === 'json') return printJson('connectors install', true, result);
      printInstall(result);
    }),
};

function printUninstall(result: UninstallResult): void {
  const lines = [
    `${result.name}: ${result.status === 'not-installed' ? 'nothing of brv installed' : result.status} (${describeScope(result)})`,
  ];
  for (const type of result.types) {
    if (type.status === 'manual') {
      lines.push(`  ${type.type}: configured in ${result.name}'s own settings; remove the "brv" server there (${type.manual!.where})`);
      continue;
    }
    const touched = type.changes.filter((change) => change.action !== 'not-installed');
    if (touched.length === 0) {
      lines.push(`  ${type.type}: not installed`);
      continue;
    }
    lines.push(`  ${type.type}:`, ...changeLines(result, touched, '    '));
  }
  if (result.removedDirectories.length > 0) {
    lines.push(`  removed empty folders brv had made: ${result.removedDirectories.map((dir) => `${shown(result, dir)}/`).join(', ')}`);
  }
  printText(lines.join('\n'));
}

const uninstallCommand: CommandModule<GlobalOptions, AgentOptions> = {
  command: 'uninstall <agent>',
  describe: 'Remove exactly what install added for an agent (every type, or one with --type); your own content stays',
  builder: (y) =>
    scopeOption(agentPositional(y))
      .option('type', { choices: TYPES, describe: 'Remove only this connector type (default: all of them)' })
      .epilog(
        "Removes the agent's rules block, its brv MCP server entry, the brv skill folder and the prompt hook. Files brv created are " +
          "deleted; files that were there before get back their previous bytes when nothing else changed them, else only brv's block " +
          'or key is taken out. An MCP entry or skill folder another agent still uses (same file) is kept until that agent is uninstalled too.',
      ),
  handler: (argv) =>
    inScope('connectors uninstall', argv, async (scope) => {
      const result = await (await connectors()).uninstallConnector(scope, argv.agent, argv.type);
      if (argv.format === 'json') return printJson('connectors uninstall', true, result);
      printUninstall(result);
    }),
};

function printStatus(scopes: Array<{ scope: string; root: string }>, entries: readonly StatusEntry[]): void {
  const lines: string[] = [];
  for (const scope of scopes) {
    lines.push(`${scope.scope === 'global' ? 'Global' : 'Project'} (${scope.root}):`);
    const mine = entries.filter((entry) => entry.scope === scope.scope);
    if (mine.length === 0) lines.push('  nothing installed');
    for (const entry of mine) {
      // a skill is shown as its folder, not file by file
      const where = [
        ...new Set(
          entry.files
            .filter((file) => file.state !== 'absent')
            .map((file) =>
              file.target === 'brv skill' ? shown(scope, file.path).replace(/\/brv\/.*$/, '/brv/') : shown(scope, file.path),
            ),
        ),
      ];
      const extra =
        entry.state === 'outdated'
          ? ` — run brv connectors install ${entry.agent} --type ${entry.type}${entry.scope === 'global' ? ' --global' : ''} to update`
          : entry.state === 'error'
            ? ` — ${entry.error?.message}`
            : '';
      lines.push(`  ${entry.name.padEnd(15)} ${entry.type.padEnd(6)} ${entry.state.padEnd(10)} ${where.join(', ')}${extra}`);
    }
  }
  printText(lines.join('\n'));
}

const statusCommand: CommandModule<GlobalOptions, StatusOptions> = {
  command: 'status [agent]',
  describe: 'What brv has installed for which agents, in this repository and under your home directory',
  builder: (y) =>
    y
      .positional('agent', { type: 'string', describe: 'Only this agent' })
      .option('global', { type: 'boolean', default: false, describe: 'Only the user-wide installs under your home directory' })
      .epilog(
        "Detected from the files themselves (brv's marked rules blocks, its MCP keys, skill folders and hook), so installs made by hand " +
          'or by an older brv show too. "outdated" means brv\'s part is there but differs from what install writes now. Outside a git ' +
          'repository only the user-wide installs are shown.',
      ),
  handler: (argv) =>
    reportingErrors('connectors status', argv, async () => {
      const api = await connectors();
      const scopes: ConnectorScope[] = [];
      if (!argv.global) {
        const { Brv } = await import('../../service/brv.js');
        let brv;
        try {
          brv = await Brv.open(argv.C ?? process.cwd());
          if (brv.repo.location.workTree) scopes.push(api.projectScope(brv.repo.location));
        } catch (error) {
          if ((error as { kind?: ErrorKind }).kind !== 'not-a-git-repository') throw error;
        } finally {
          brv?.close();
        }
      }
      scopes.push(api.globalScope());
      const entries = await api.connectorStatus(scopes, argv.agent);
      if (argv.format === 'json') {
        return printJson('connectors status', true, { scopes: scopes.map(({ scope, root }) => ({ scope, root })), connectors: entries });
      }
      printStatus(scopes, entries);
    }),
};

export const connectorsCommand: CommandModule<GlobalOptions, GlobalOptions> = {
  command: 'connectors',
  describe: 'Connect coding agents to brv (rules, MCP server, skill, prompt hook): list, install, uninstall, status',
  builder: (y: Argv<GlobalOptions>) =>
    y
      .command(listCommand)
      .command(installCommand)
      .command(uninstallCommand)
      .command(statusCommand)
      .epilog('25 agents: Claude Code, Codex, Cursor, Copilot, Gemini CLI, Windsurf, Zed, … — "brv connectors list" shows them all.'),
  handler: () => {},
};
