import path from 'node:path';
import type { AgentInfo, FileChange, InstallResult, StatusEntry, UninstallResult } from '../setup/connectors/connectors.js';

/** What `brv connectors list` shows: every agent and its connector types. */
export type AgentsView = readonly AgentInfo[];

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

/** `brv connectors list`: each agent, its connector types (default marked *) and the files each writes. */
export function agentsText(agents: AgentsView): string {
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
  lines.push('', 'Install with: brv connectors install <agent> [--type rules|mcp|skill|hook|agent] [--global]');
  return lines.join('\n');
}

/** `brv connectors install`: what was written, or where to add brv by hand. */
export function installText(result: InstallResult): string {
  if (result.status === 'manual') {
    const manual = result.manual!;
    return [
      `${result.name} keeps its MCP servers in its own settings, which brv does not edit. Add brv there:`,
      `  where: ${manual.where}`,
      `  guide: ${manual.guide}`,
      manual.config,
    ].join('\n');
  }
  const headline: Record<InstallResult['status'], string> = {
    installed: 'installed',
    updated: 'updated',
    unchanged: 'already installed, nothing to change',
    manual: 'manual',
  };
  return [
    `${result.name}: ${result.type} ${headline[result.status]} (${describeScope(result)})`,
    ...changeLines(result, result.changes),
  ].join('\n');
}

/** `brv connectors uninstall`: what was removed, per connector type. */
export function uninstallText(result: UninstallResult): string {
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
  return lines.join('\n');
}

/** `brv connectors status`: per scope, each installed connector, its state and files. */
export function connectorStatusText(scopes: Array<{ scope: string; root: string }>, entries: readonly StatusEntry[]): string {
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
  return lines.join('\n');
}
