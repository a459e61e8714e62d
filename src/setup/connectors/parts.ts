import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { readTemplate, templatesDirectory, type TemplateName } from '../templates.js';
import type { HookTarget, McpTarget, RulesTarget } from './agents.js';
import { jsonAppend, jsonGet, jsonIsEmpty, jsonRemove, jsonSet } from './json-config.js';
import type { FileRecord } from './manifest.js';
import { findAgentBlock, findByteRoverBlock, frontmatterText, removeRulesBlock, renderRulesBlock, upsertRulesBlock } from './rules.js';
import { displayKey, includesFields } from './text.js';
import { tomlGet, tomlRemove, tomlSet } from './toml-config.js';
import { yamlGet, yamlRemove, yamlSet } from './yaml-config.js';

// A part is one thing a connector puts in one file: an agent's rules block, an MCP server entry, a
// hook, one file of the skill. Each knows how to find itself in a file's text, add itself and take
// itself out again, leaving everything else in the file as it was.

export type PartState = 'installed' | 'outdated' | 'absent';

export interface Part {
  /** Absolute path of the file. */
  file: string;
  /** What brv puts there, for people and to tell when two installs share it (`mcpServers.brv`). */
  target: string;
  /** Another agent's install may put the very same thing there (same MCP key, same skill folder). */
  shared: boolean;
  /** brv owns the whole file: it is deleted once brv's part is gone and nothing else is left. */
  owned: boolean;
  inspect(content: string | undefined): PartState;
  /**
   * The file's content with brv's part in place (`content` undefined: the file does not exist yet).
   * `replaced` names what else brv's part took the place of (ByteRover's rules block): gone for
   * good, uninstall does not bring it back.
   */
  add(content: string | undefined): { content: string; createdKey?: string[]; replaced?: string };
  /** The content without brv's part; undefined when it is not there. */
  remove(content: string, record: FileRecord | undefined): string | undefined;
  /** Whether what is left after `remove` is nothing worth keeping (the file can go when brv created it). */
  isEmpty(content: string): boolean;
}

export function rulesPart(file: string, target: RulesTarget, agentName: string, rules: string): Part {
  const block = renderRulesBlock(rules, agentName);
  const header = target.mode === 'dedicated' ? frontmatterText(target.frontmatter) : '';
  return {
    file,
    target: `rules block for ${agentName}`,
    shared: false,
    owned: target.mode === 'dedicated',
    inspect(content) {
      if (content === undefined) return 'absent';
      const existing = findAgentBlock(content, file, agentName);
      if (!existing) return 'absent';
      return existing.text === block ? 'installed' : 'outdated';
    },
    add(content) {
      const replaced =
        content !== undefined && !findAgentBlock(content, file, agentName) && findByteRoverBlock(content, file, agentName)
          ? `ByteRover's rules block for ${agentName}`
          : undefined;
      return { content: upsertRulesBlock(content ?? header, file, agentName, block), ...(replaced ? { replaced } : {}) };
    },
    remove: (content) => removeRulesBlock(content, file, agentName),
    isEmpty: (content) => content.trim() === '' || (header !== '' && content.trim() === header.trim()),
  };
}

export function mcpPart(file: string, target: McpTarget): Part {
  const key = [...target.key];
  const [table, name] = key as [string, string];
  const base = { file, target: displayKey(key), shared: true, owned: false };
  const state = (value: unknown): PartState =>
    value === undefined ? 'absent' : includesFields(value, target.entry) ? 'installed' : 'outdated';
  switch (target.format) {
    case 'json':
      return {
        ...base,
        inspect: (content) => (content === undefined ? 'absent' : state(jsonGet(content, file, key))),
        add(content) {
          const result = jsonSet(content ?? '', file, key, target.entry);
          return { content: result.content, ...(result.created ? { createdKey: result.created } : {}) };
        },
        remove: (content, record) => jsonRemove(content, file, key, record?.createdKey),
        isEmpty: jsonIsEmpty,
      };
    case 'toml':
      return {
        ...base,
        inspect: (content) => (content === undefined ? 'absent' : state(tomlGet(content, file, table, name))),
        add: (content) => ({ content: tomlSet(content ?? '', file, table, name, target.entry) }),
        remove: (content) => tomlRemove(content, file, table, name),
        isEmpty: (content) => content.trim() === '',
      };
    case 'yaml':
      return {
        ...base,
        inspect: (content) => (content === undefined ? 'absent' : state(yamlGet(content, file, key))),
        add(content) {
          const created = content === undefined || yamlGet(content, file, [table]) === undefined;
          return { content: yamlSet(content ?? '', file, table, name, target.entry), ...(created ? { createdKey: [table] } : {}) };
        },
        remove: (content, record) => yamlRemove(content, file, table, name, record?.createdKey !== undefined),
        isEmpty: (content) => content.trim() === '',
      };
  }
}

interface HookLocation {
  group: number;
  hook: number;
  /** The group holds nothing but brv's hook. */
  alone: boolean;
}

function findHook(content: string, file: string, target: HookTarget): HookLocation | undefined {
  const groups = jsonGet(content, file, ['hooks', target.event]);
  if (!Array.isArray(groups)) return undefined;
  for (const [group, entry] of groups.entries()) {
    const hooks = (entry as { hooks?: unknown })?.hooks;
    if (!Array.isArray(hooks)) continue;
    const hook = hooks.findIndex((item) => (item as { command?: unknown })?.command === target.command);
    if (hook >= 0) {
      const keys = Object.keys(entry as object).filter((k) => k !== 'hooks' && k !== 'matcher');
      return { group, hook, alone: hooks.length === 1 && keys.length === 0 };
    }
  }
  return undefined;
}

export function hookPart(file: string, target: HookTarget): Part {
  return {
    file,
    target: `hooks.${target.event}: ${target.command}`,
    shared: false,
    owned: false,
    inspect: (content) => (content !== undefined && findHook(content, file, target) ? 'installed' : 'absent'),
    add(content) {
      const result = jsonAppend(content ?? '', file, ['hooks', target.event], { hooks: [{ type: 'command', command: target.command }] });
      return { content: result.content, ...(result.created ? { createdKey: result.created } : {}) };
    },
    remove(content, record) {
      const found = findHook(content, file, target);
      if (!found) return undefined;
      return found.alone
        ? jsonRemove(content, file, ['hooks', target.event, found.group], record?.createdKey)
        : jsonRemove(content, file, ['hooks', target.event, found.group, 'hooks', found.hook]);
    },
    isEmpty: jsonIsEmpty,
  };
}

/** One file of the skill bundle, owned by brv. */
export function skillFilePart(file: string, text: string): Part {
  return {
    file,
    target: 'brv skill',
    shared: true,
    owned: true,
    inspect: (content) => (content === undefined ? 'absent' : content === text ? 'installed' : 'outdated'),
    add: () => ({ content: text }),
    remove: () => '',
    isEmpty: () => true,
  };
}

/**
 * brv's curate sub-agent file, owned by brv. What was at that path before (ByteRover installs its
 * own `brv-curate` there) is replaced, and uninstall deletes the file rather than bring it back.
 */
export function subAgentPart(file: string, text: string): Part {
  return {
    file,
    target: 'brv-curate sub-agent',
    shared: false,
    owned: true,
    inspect: (content) => (content === undefined ? 'absent' : content === text ? 'installed' : 'outdated'),
    add: (content) => ({
      content: text,
      ...(content !== undefined && /byterover|bypassPermissions/i.test(content) ? { replaced: "ByteRover's brv-curate sub-agent" } : {}),
    }),
    remove: () => '',
    isEmpty: () => true,
  };
}

let skillFiles: Promise<Array<{ name: string; text: string }>> | undefined;

/** Every file of the skill bundle (templates/skill/, sub-folders included), as paths relative to it. */
export function skillBundle(): Promise<Array<{ name: string; text: string }>> {
  skillFiles ??= (async () => {
    const root = path.join(templatesDirectory(), 'skill');
    const names: string[] = [];
    const walk = async (dir: string): Promise<void> => {
      const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
      for (const entry of entries.sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(dir, entry.name);
        if (entry.isDirectory()) await walk(full);
        else if (entry.isFile()) names.push(path.relative(root, full).split(path.sep).join('/'));
      }
    };
    await walk(root);
    // SKILL.md first (readTemplate says so when it is missing)
    names.splice(0, names.length, 'SKILL.md', ...names.filter((name) => name !== 'SKILL.md'));
    return Promise.all(names.map(async (name) => ({ name, text: await readTemplate(`skill/${name}` as TemplateName) })));
  })();
  skillFiles.catch(() => (skillFiles = undefined));
  return skillFiles;
}

export function rulesText(): Promise<string> {
  return readTemplate('rules.md');
}
