import { lstat } from 'node:fs/promises';
import path from 'node:path';
import { BrvError, type ErrorKind } from '../../base/errors.js';
import { localStateDir } from '../../store/layout.js';
import {
  AGENTS,
  CONNECTOR_TYPES,
  SERVER_NAME,
  findAgent,
  supportedTypes,
  type AgentDefinition,
  type ConnectorType,
  type ManualMcp,
  type Scope,
} from './agents.js';
import { applyWrites, readConfigFile, removeEmptyDirectories, resolveInside, type FileWrite } from './files.js';
import { withoutByteRoverBlock } from './rules.js';
import {
  findInstall,
  loadManifest,
  otherOwners,
  saveManifest,
  sameInstall,
  type FileRecord,
  type InstallRecord,
  type Manifest,
} from './manifest.js';
import { readTemplate } from '../templates.js';
import { hookPart, mcpPart, rulesPart, rulesText, skillBundle, skillFilePart, subAgentPart, type Part, type PartState } from './parts.js';
import { applyEdit, sha256, undoEdit, type TextEdit } from './text.js';

/** Where connectors install: the repository's work tree (project) or the home directory (global). */
export interface ConnectorScope {
  scope: Scope;
  root: string;
  /** Where brv records what it installed in this scope. */
  manifest: string;
  platform: NodeJS.Platform;
}

export function projectScope(location: { workTree: string | undefined; commonDir: string }, platform = process.platform): ConnectorScope {
  if (!location.workTree) {
    throw new BrvError(
      'no-work-tree',
      'This repository has no working tree (bare), so there is no project to install connectors into. Run brv from a worktree, or use --global.',
    );
  }
  return { scope: 'project', root: location.workTree, manifest: localStateDir(location.commonDir, 'connectors.json'), platform };
}

export function globalScope(home: string, platform = process.platform): ConnectorScope {
  return { scope: 'global', root: home, manifest: path.join(home, '.config', 'brv', 'connectors.json'), platform };
}

export type FileAction = 'created' | 'added' | 'updated' | 'unchanged' | 'removed' | 'deleted' | 'kept' | 'not-installed';

export interface FileChange {
  path: string;
  /** What brv put in (or took out of) the file. */
  target: string;
  action: FileAction;
  note?: string;
}

export interface ManualInstructions {
  guide: string;
  where: string;
  /** The configuration to paste. */
  config: string;
}

export interface InstallResult {
  agent: string;
  name: string;
  type: ConnectorType;
  scope: Scope;
  root: string;
  status: 'installed' | 'updated' | 'unchanged' | 'manual';
  changes: FileChange[];
  manual?: ManualInstructions;
}

export interface UninstallTypeResult {
  type: ConnectorType;
  status: 'removed' | 'kept' | 'not-installed' | 'manual';
  changes: FileChange[];
  manual?: ManualInstructions;
}

export interface UninstallResult {
  agent: string;
  name: string;
  scope: Scope;
  root: string;
  status: 'removed' | 'not-installed' | 'kept' | 'manual';
  types: UninstallTypeResult[];
  /** Directories brv had made that uninstall left empty, so removed. */
  removedDirectories: string[];
}

export interface ConnectorTypeInfo {
  type: ConnectorType;
  default: boolean;
  /** Paths relative to the scope root; null where the agent has none. */
  project: string[] | null;
  global: string[] | null;
  /** For MCP configured in the agent's own settings screen. */
  manual?: { guide: string; where: string };
}

export interface AgentInfo {
  id: string;
  name: string;
  aliases: string[];
  defaultType: ConnectorType;
  types: ConnectorTypeInfo[];
}

export type StatusState = 'installed' | 'outdated' | 'error';

export interface StatusEntry {
  agent: string;
  name: string;
  type: ConnectorType;
  scope: Scope;
  root: string;
  state: StatusState;
  files: Array<{ path: string; target: string; state: PartState | 'error' }>;
  error?: { kind: ErrorKind; message: string };
}

/** The agent a user named, or `unknown-agent` listing the valid names. */
function resolveAgent(name: string): AgentDefinition {
  const agent = findAgent(name);
  if (!agent) {
    throw new BrvError('unknown-agent', `Unknown agent "${name}". Agents: ${AGENTS.map((a) => a.id).join(', ')}.`, {
      agents: AGENTS.map((a) => a.id),
    });
  }
  return agent;
}

function manualConfig(manual: ManualMcp): string {
  let value: unknown = manual.entry;
  for (const key of [...manual.key].reverse()) value = { [key]: value };
  return JSON.stringify(value, null, 2);
}

function manualInstructions(manual: ManualMcp): ManualInstructions {
  return { guide: manual.guide, where: manual.where, config: manualConfig(manual) };
}

/** Relative paths a type writes in one scope (for `list`), or undefined when the agent has none there. */
function relativeTargets(agent: AgentDefinition, type: ConnectorType, scope: Scope, platform: NodeJS.Platform): string[] | undefined {
  switch (type) {
    case 'rules': {
      const target = agent.rules?.[scope];
      return target ? [target.file] : undefined;
    }
    case 'mcp': {
      const target = agent.mcp?.[scope];
      return target ? [typeof target.file === 'string' ? target.file : target.file(platform)] : undefined;
    }
    case 'skill': {
      const target = agent.skill?.[scope];
      return target ? [`${target.dir}/${SERVER_NAME}/`, ...(target.attachment ? [target.attachment.file] : [])] : undefined;
    }
    case 'hook': {
      const target = agent.hook?.[scope];
      return target ? [target.file] : undefined;
    }
    case 'agent': {
      const target = agent.agent?.[scope];
      return target ? [target.file] : undefined;
    }
  }
}

export function listAgents(platform = process.platform): AgentInfo[] {
  return AGENTS.map((agent) => ({
    id: agent.id,
    name: agent.name,
    aliases: [...agent.aliases],
    defaultType: agent.defaultType,
    types: supportedTypes(agent).map((type) => ({
      type,
      default: type === agent.defaultType,
      project: relativeTargets(agent, type, 'project', platform) ?? null,
      global: relativeTargets(agent, type, 'global', platform) ?? null,
      ...(type === 'mcp' && agent.mcp?.manual ? { manual: { guide: agent.mcp.manual.guide, where: agent.mcp.manual.where } } : {}),
    })),
  }));
}

type Resolved = { kind: 'parts'; parts: Part[]; skillDir?: string } | { kind: 'manual'; manual: ManualMcp } | { kind: 'none' };

/** The parts of one connector type in one scope, paths checked to stay inside the scope's root. */
async function resolveParts(ctx: ConnectorScope, agent: AgentDefinition, type: ConnectorType): Promise<Resolved> {
  const inside = (relative: string) => resolveInside(ctx.root, relative);
  switch (type) {
    case 'rules': {
      const target = agent.rules?.[ctx.scope];
      if (!target) return { kind: 'none' };
      return { kind: 'parts', parts: [rulesPart(await inside(target.file), target, agent.name, await rulesText())] };
    }
    case 'mcp': {
      const target = agent.mcp?.[ctx.scope];
      if (!target) return agent.mcp?.manual ? { kind: 'manual', manual: agent.mcp.manual } : { kind: 'none' };
      const relative = typeof target.file === 'string' ? target.file : target.file(ctx.platform);
      return { kind: 'parts', parts: [mcpPart(await inside(relative), target)] };
    }
    case 'skill': {
      const target = agent.skill?.[ctx.scope];
      if (!target) return { kind: 'none' };
      const dir = await inside(`${target.dir}/${SERVER_NAME}`);
      const folder = await lstat(dir).catch(() => undefined);
      if (folder?.isSymbolicLink()) {
        throw new BrvError(
          'config-is-symlink',
          `${dir} is a symbolic link; brv does not write its skill through it. Remove the link, then run again.`,
        );
      }
      const parts: Part[] = [];
      for (const file of await skillBundle())
        parts.push(skillFilePart(await inside(`${target.dir}/${SERVER_NAME}/${file.name}`), file.text));
      if (target.attachment) parts.push(rulesPart(await inside(target.attachment.file), target.attachment, agent.name, await rulesText()));
      return { kind: 'parts', parts, skillDir: dir };
    }
    case 'hook': {
      const target = agent.hook?.[ctx.scope];
      if (!target) return { kind: 'none' };
      return { kind: 'parts', parts: [hookPart(await inside(target.file), target)] };
    }
    case 'agent': {
      const target = agent.agent?.[ctx.scope];
      if (!target) return { kind: 'none' };
      return { kind: 'parts', parts: [subAgentPart(await inside(target.file), await readTemplate(target.template))] };
    }
  }
}

function requireType(agent: AgentDefinition, type: ConnectorType): void {
  if (!supportedTypes(agent).includes(type)) {
    throw new BrvError('unsupported-type', `${agent.name} has no ${type} connector; it supports ${supportedTypes(agent).join(', ')}.`);
  }
}

function scopeError(agent: AgentDefinition, type: ConnectorType, scope: Scope, platform: NodeJS.Platform): BrvError {
  const other: Scope = scope === 'project' ? 'global' : 'project';
  const where = relativeTargets(agent, type, other, platform);
  return scope === 'project'
    ? new BrvError(
        'scope-not-supported',
        `${agent.name} reads its ${type} only from your home directory (~/${where?.[0] ?? ''}); brv writes there only when asked: add --global.`,
      )
    : new BrvError(
        'scope-not-supported',
        `${agent.name} has no user-wide ${type}; run without --global to install it into this repository.`,
      );
}

interface Plan {
  writes: FileWrite[];
  changes: FileChange[];
  /** Updates the manifest once the writes are done (given the directories they created). */
  record(manifest: Manifest, createdDirs: string[]): Promise<void> | void;
  /** Directories to remove when empty after the writes. */
  cleanup: string[];
}

function key(agent: AgentDefinition, type: ConnectorType, ctx: ConnectorScope) {
  return { agent: agent.id, type, scope: ctx.scope, root: ctx.root };
}

async function planInstall(
  ctx: ConnectorScope,
  manifest: Manifest,
  agent: AgentDefinition,
  type: ConnectorType,
  parts: Part[],
): Promise<Plan> {
  const self = key(agent, type, ctx);
  const previous = findInstall(manifest, self);
  const writes: FileWrite[] = [];
  const changes: FileChange[] = [];
  const files: FileRecord[] = [];
  for (const part of parts) {
    const file = await readConfigFile(part.file);
    const state = part.inspect(file.content);
    const prior = previous?.files.find((entry) => entry.path === part.file && entry.target === part.target);
    if (state === 'installed') {
      const inherited = otherOwners(manifest, self, part.file, part.target)
        .flatMap((owner) => owner.files)
        .find((entry) => entry.path === part.file && entry.target === part.target);
      files.push(
        prior ?? (inherited ? { ...inherited } : { path: part.file, created: false, sha256: sha256(file.content!), target: part.target }),
      );
      changes.push({ path: part.file, target: part.target, action: 'unchanged' });
      continue;
    }
    // Start from the file as it was before brv, while brv's last write to it is intact: a new
    // version then replaces the old one and uninstall still gives back the original bytes.
    let base = file.content;
    let created = file.content === undefined;
    let original = state === 'absent';
    if (prior?.undo && file.content !== undefined && sha256(file.content) === prior.sha256) {
      base = applyEdit(file.content, prior.undo);
      created = prior.created;
      original = true;
      if (created && base === '') base = undefined;
    }
    const added = part.add(base);
    // The undo must lead to the file without brv. Replacing an older brv part brv has no record of:
    // the file without brv is what taking the new part out gives (brv-owned files simply go).
    // What brv replaced (ByteRover's block) is not part of "the file without brv" either.
    let undo: TextEdit | undefined;
    if (original && !added.replaced) undo = undoEdit(base ?? '', added.content);
    else if (!part.owned) {
      const without = part.remove(added.content, undefined);
      if (without !== undefined) undo = undoEdit(without, added.content);
    }
    writes.push({ path: part.file, before: file.content, after: added.content, mode: file.mode });
    files.push({
      path: part.file,
      created,
      sha256: sha256(added.content),
      ...(undo ? { undo } : {}),
      target: part.target,
      ...(added.createdKey ? { createdKey: added.createdKey } : {}),
      ...((added.replaced ?? prior?.replaced) ? { replaced: added.replaced ?? prior?.replaced } : {}),
    });
    changes.push({
      path: part.file,
      target: part.target,
      action: file.content === undefined ? 'created' : state === 'outdated' ? 'updated' : 'added',
      ...(added.replaced ? { note: `replaced ${added.replaced}; uninstall will not restore it` } : {}),
    });
  }
  return {
    writes,
    changes,
    cleanup: [],
    record(updated, createdDirs) {
      const rest = updated.installs.filter((entry) => !sameInstall(entry, self));
      const dirs = [...new Set([...(previous?.dirs ?? []), ...createdDirs])];
      updated.installs = [...rest, { ...self, files, dirs }];
    },
  };
}

async function planUninstall(
  ctx: ConnectorScope,
  manifest: Manifest,
  agent: AgentDefinition,
  type: ConnectorType,
  resolved: { parts: Part[]; skillDir?: string },
): Promise<Plan> {
  const self = key(agent, type, ctx);
  const record = findInstall(manifest, self);
  const parts = [...resolved.parts];
  // skill files an older bundle had and this one does not
  if (type === 'skill' && resolved.skillDir && record) {
    for (const entry of record.files) {
      if (
        entry.target === 'brv skill' &&
        !parts.some((part) => part.file === entry.path) &&
        entry.path.startsWith(resolved.skillDir + path.sep)
      ) {
        parts.push(skillFilePart(entry.path, ''));
      }
    }
  }
  const writes: FileWrite[] = [];
  const changes: FileChange[] = [];
  const transfers: Array<{ owners: InstallRecord[]; entry: FileRecord }> = [];
  const createdTransfers: string[] = [];
  for (const part of parts) {
    const file = await readConfigFile(part.file);
    const entry = record?.files.find((item) => item.path === part.file && item.target === part.target);
    if (file.content === undefined || part.inspect(file.content) === 'absent') {
      changes.push({ path: part.file, target: part.target, action: 'not-installed' });
      continue;
    }
    const owners = part.shared ? otherOwners(manifest, self, part.file, part.target) : [];
    if (owners.length > 0) {
      if (entry && entry.sha256 === sha256(file.content)) transfers.push({ owners, entry });
      const names = [...new Set(owners.map((owner) => AGENTS.find((a) => a.id === owner.agent)?.name ?? owner.agent))];
      changes.push({ path: part.file, target: part.target, action: 'kept', note: `still used by ${names.join(', ')}` });
      continue;
    }
    let after: string | undefined;
    if (entry?.undo && sha256(file.content) === entry.sha256) {
      after = applyEdit(file.content, entry.undo);
      if (entry.created && after === '') after = undefined;
    } else {
      after = part.remove(file.content, entry);
      if (after === undefined) {
        changes.push({ path: part.file, target: part.target, action: 'not-installed' });
        continue;
      }
      if (part.isEmpty(after) && (part.owned || entry?.created)) after = undefined;
    }
    if (after !== undefined && entry?.created) createdTransfers.push(part.file);
    writes.push({ path: part.file, before: file.content, after, mode: file.mode });
    changes.push({
      path: part.file,
      target: part.target,
      action: after === undefined ? 'deleted' : 'removed',
      ...(entry?.replaced ? { note: `${entry.replaced}, which brv replaced at install, is not restored` } : {}),
    });
  }
  return {
    writes,
    changes,
    cleanup: [...(record?.dirs ?? []), ...(resolved.skillDir ? [resolved.skillDir] : [])],
    async record(updated) {
      for (const { owners, entry } of transfers) {
        for (const owner of owners) {
          const current = updated.installs.find((item) => sameInstall(item, owner));
          const index = current?.files.findIndex((item) => item.path === entry.path && item.target === entry.target) ?? -1;
          if (current && index >= 0 && !current.files[index]!.undo) current.files[index] = { ...entry };
          if (current && record) current.dirs = [...new Set([...current.dirs, ...record.dirs])];
        }
      }
      // A shared file brv created stays brv's to delete for the installs still in it.
      for (const file of createdTransfers) {
        for (const other of updated.installs) for (const item of other.files) if (item.path === file) item.created = true;
      }
      // So do directories brv made that still hold another install's files.
      for (const dir of record?.dirs ?? []) {
        if (!(await lstat(dir).catch(() => undefined))) continue;
        for (const other of updated.installs) {
          if (sameInstall(other, self) || other.scope !== self.scope || other.root !== self.root) continue;
          if (other.files.some((item) => item.path.startsWith(dir + path.sep)) && !other.dirs.includes(dir)) other.dirs.push(dir);
        }
      }
      updated.installs = updated.installs.filter((item) => !sameInstall(item, self));
    },
  };
}

async function commit(ctx: ConnectorScope, plans: Plan[]): Promise<string[]> {
  const writes = plans.flatMap((plan) => plan.writes);
  const createdDirs = writes.length > 0 ? await applyWrites(writes) : [];
  const removedDirs = await removeEmptyDirectories(plans.flatMap((plan) => plan.cleanup));
  const manifest = await loadManifest(ctx.manifest);
  const before = JSON.stringify(manifest);
  for (const plan of plans) await plan.record(manifest, createdDirs);
  if (JSON.stringify(manifest) === before) return removedDirs;
  try {
    await saveManifest(ctx.manifest, manifest);
  } catch {
    // the connector is installed; without its record uninstall falls back to removing brv's part by structure
  }
  return removedDirs;
}

/**
 * Takes ByteRover's block for the agent out of ByteRover's own rules file (`agent-context.*`), so
 * the agent reads brv's rules alone; the file goes when nothing else is in it. Not recorded:
 * uninstalling brv does not bring ByteRover's rules back.
 */
async function retireByteRoverRules(ctx: ConnectorScope, agent: AgentDefinition, plan: Plan): Promise<void> {
  const relative = agent.rules?.[ctx.scope]?.byterover;
  if (!relative) return;
  const file = await readConfigFile(await resolveInside(ctx.root, relative));
  if (file.content === undefined) return;
  const after = withoutByteRoverBlock(file.content, file.path, agent.name);
  if (after === null) return;
  plan.writes.push({ path: file.path, before: file.content, after, mode: file.mode });
  plan.changes.push({
    path: file.path,
    target: `ByteRover's rules block for ${agent.name}`,
    action: after === undefined ? 'deleted' : 'removed',
    note: "replaced by brv's rules; uninstall will not restore it",
  });
}

/** Installs one connector type for an agent (its default type when `type` is undefined). */
export async function installConnector(ctx: ConnectorScope, agentName: string, type?: ConnectorType): Promise<InstallResult> {
  const agent = resolveAgent(agentName);
  const chosen = type ?? agent.defaultType;
  requireType(agent, chosen);
  const base = { agent: agent.id, name: agent.name, type: chosen, scope: ctx.scope, root: ctx.root };
  const resolved = await resolveParts(ctx, agent, chosen);
  if (resolved.kind === 'manual') return { ...base, status: 'manual', changes: [], manual: manualInstructions(resolved.manual) };
  if (resolved.kind === 'none') throw scopeError(agent, chosen, ctx.scope, ctx.platform);
  const manifest = await loadManifest(ctx.manifest);
  const plan = await planInstall(ctx, manifest, agent, chosen, resolved.parts);
  if (chosen === 'rules') await retireByteRoverRules(ctx, agent, plan);
  await commit(ctx, [plan]);
  const actions = plan.changes.map((change) => change.action);
  const status = actions.every((a) => a === 'unchanged')
    ? 'unchanged'
    : actions.some((a) => a === 'created' || a === 'added')
      ? 'installed'
      : 'updated';
  return { ...base, status, changes: plan.changes };
}

/**
 * Removes what brv installed for an agent: one type, or every type it has in this scope. Other
 * agents' blocks, other MCP servers and the user's own content stay; files brv created go.
 */
export async function uninstallConnector(ctx: ConnectorScope, agentName: string, type?: ConnectorType): Promise<UninstallResult> {
  const agent = resolveAgent(agentName);
  if (type) requireType(agent, type);
  const types = type ? [type] : supportedTypes(agent);
  const manifest = await loadManifest(ctx.manifest);
  const plans: Array<{ type: ConnectorType; plan?: Plan; manual?: ManualInstructions }> = [];
  for (const current of types) {
    const resolved = await resolveParts(ctx, agent, current);
    if (resolved.kind === 'manual') plans.push({ type: current, manual: manualInstructions(resolved.manual) });
    else if (resolved.kind === 'parts') plans.push({ type: current, plan: await planUninstall(ctx, manifest, agent, current, resolved) });
    else if (type) throw scopeError(agent, current, ctx.scope, ctx.platform);
  }
  const removedDirs = await commit(
    ctx,
    plans.flatMap((entry) => (entry.plan ? [entry.plan] : [])),
  );
  const results: UninstallTypeResult[] = plans.map(({ type: current, plan, manual }) => {
    if (manual) return { type: current, status: 'manual', changes: [], manual };
    const changes = plan!.changes;
    const status = changes.some((c) => c.action === 'removed' || c.action === 'deleted')
      ? 'removed'
      : changes.some((c) => c.action === 'kept')
        ? 'kept'
        : 'not-installed';
    return { type: current, status, changes };
  });
  const statuses = results.map((result) => result.status);
  const status = statuses.includes('removed')
    ? 'removed'
    : statuses.includes('kept')
      ? 'kept'
      : statuses.every((s) => s === 'manual') && statuses.length > 0
        ? 'manual'
        : 'not-installed';
  return { agent: agent.id, name: agent.name, scope: ctx.scope, root: ctx.root, status, types: results, removedDirectories: removedDirs };
}

/** What brv has installed for which agents in the given scopes (agents and types with nothing installed are left out). */
export async function connectorStatus(scopes: readonly ConnectorScope[], agentName?: string): Promise<StatusEntry[]> {
  const agents = agentName ? [resolveAgent(agentName)] : AGENTS;
  const entries: StatusEntry[] = [];
  for (const ctx of scopes) {
    const manifest = await loadManifest(ctx.manifest);
    for (const agent of agents) {
      for (const type of CONNECTOR_TYPES) {
        if (!agent[type]) continue;
        const base = { agent: agent.id, name: agent.name, type, scope: ctx.scope, root: ctx.root };
        let resolved: Resolved;
        try {
          resolved = await resolveParts(ctx, agent, type);
        } catch (error) {
          if (!(error instanceof BrvError)) throw error;
          entries.push({ ...base, state: 'error', files: [], error: { kind: error.kind, message: error.message } });
          continue;
        }
        if (resolved.kind !== 'parts') continue;
        const files: StatusEntry['files'] = [];
        let failure: BrvError | undefined;
        const self = key(agent, type, ctx);
        const recorded = findInstall(manifest, self);
        for (const part of resolved.parts) {
          try {
            const file = await readConfigFile(part.file);
            let state = part.inspect(file.content);
            // What several agents put in one file (one `mcpServers.brv` in .mcp.json, one skill folder)
            // is this agent's only when brv recorded installing it for this agent, or when no install
            // record claims it at all (made by hand or by an older brv): another agent's install does
            // not make this one installed.
            if (
              state !== 'absent' &&
              part.shared &&
              !recorded?.files.some((entry) => entry.path === part.file && entry.target === part.target) &&
              otherOwners(manifest, self, part.file, part.target).length > 0
            ) {
              state = 'absent';
            }
            files.push({ path: part.file, target: part.target, state });
          } catch (error) {
            if (!(error instanceof BrvError)) throw error;
            failure ??= error;
            files.push({ path: part.file, target: part.target, state: 'error' });
          }
        }
        const states = files.map((file) => file.state);
        if (failure) {
          entries.push({ ...base, state: 'error', files, error: { kind: failure.kind, message: failure.message } });
        } else if (states.some((state) => state !== 'absent')) {
          entries.push({ ...base, state: states.every((state) => state === 'installed') ? 'installed' : 'outdated', files });
        }
      }
    }
  }
  return entries;
}
