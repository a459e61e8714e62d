import test from 'ava';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseToml } from 'smol-toml';
import { parse as parseYaml } from 'yaml';
import { parse as parseJsonc } from 'jsonc-parser';
import {
  AGENTS,
  CONNECTOR_TYPES,
  supportedTypes,
  type AgentDefinition,
  type ConnectorType,
  type Scope,
} from '../../src/setup/connectors/agents.js';
import { connectorStatus, installConnector, listAgents, uninstallConnector } from '../../src/setup/connectors/connectors.js';
import { RULES_BEGIN, RULES_END, rulesFooter } from '../../src/setup/connectors/rules.js';
import { scopeIn, seedUserContent, snapshot } from './helpers.js';

// Every agent × every connector type it supports × every scope it has: install into a fresh root
// and into one where the files already hold user content, check what was written, install again
// (byte-identical), uninstall (the exact previous bytes, directories included).

interface Case {
  agent: AgentDefinition;
  type: ConnectorType;
  scope: Scope;
}

const cases: Case[] = [];
const manual: Array<{ agent: AgentDefinition }> = [];
for (const agent of AGENTS) {
  for (const type of supportedTypes(agent)) {
    for (const scope of ['project', 'global'] as const) if (agent[type]?.[scope]) cases.push({ agent, type, scope });
  }
  if (agent.mcp?.manual) manual.push({ agent });
}

test('the registry covers the 25 agents of ByteRover, each with a default type it supports', (t) => {
  t.is(AGENTS.length, 25);
  t.deepEqual(
    AGENTS.map((a) => a.name),
    [
      'Amp',
      'Antigravity',
      'Auggie CLI',
      'Augment Code',
      'Claude Code',
      'Claude Desktop',
      'Cline',
      'Codex',
      'Cursor',
      'Gemini CLI',
      'Github Copilot',
      'Hermes',
      'Junie',
      'Kilo Code',
      'Kiro',
      'OpenClaude',
      'OpenClaw',
      'OpenCode',
      'Qoder',
      'Qwen Code',
      'Roo Code',
      'Trae.ai',
      'Warp',
      'Windsurf',
      'Zed',
    ],
  );
  for (const agent of AGENTS) {
    t.true(supportedTypes(agent).includes(agent.defaultType), agent.name);
    t.regex(agent.id, /^[a-z][a-z-]*$/);
  }
  t.is(new Set(AGENTS.map((a) => a.id)).size, 25);
  t.deepEqual(
    listAgents('linux').find((a) => a.id === 'claude-code'),
    {
      id: 'claude-code',
      name: 'Claude Code',
      aliases: ['claude'],
      defaultType: 'mcp',
      types: [
        { type: 'rules', default: false, project: ['CLAUDE.md'], global: ['.claude/CLAUDE.md'] },
        { type: 'mcp', default: true, project: ['.mcp.json'], global: ['.claude.json'] },
        { type: 'skill', default: false, project: ['.claude/skills/brv/'], global: ['.claude/skills/brv/'] },
        { type: 'hook', default: false, project: ['.claude/settings.local.json'], global: ['.claude/settings.json'] },
        { type: 'agent', default: false, project: ['.claude/agents/brv-curate.md'], global: ['.claude/agents/brv-curate.md'] },
      ],
    },
  );
  t.is(cases.length, 103, 'agent × type × scope combinations');
});

function parseConfig(format: string, content: string): any {
  if (format === 'toml') return parseToml(content);
  if (format === 'yaml') return parseYaml(content);
  return parseJsonc(content);
}

/** Checks the files hold what `type` installs, beyond the status the library reports. */
async function checkInstalled(t: any, c: Case, root: string, platform: NodeJS.Platform, seeded: boolean): Promise<void> {
  const { agent, type, scope } = c;
  const read = (relative: string) => readFile(`${root}/${relative}`, 'utf8');
  if (type === 'rules') {
    const target = agent.rules![scope]!;
    const text = await read(target.file);
    t.true(text.includes(RULES_BEGIN) && text.includes(`${rulesFooter(agent.name)}\n${RULES_END}`));
    if (target.mode === 'dedicated' && target.frontmatter && !seeded)
      t.true(text.startsWith(`---\n${target.frontmatter}\n---\n\n${RULES_BEGIN}`));
    if (seeded) t.true(text.startsWith('# House rules\r\n\r\nUse tabs.'));
  } else if (type === 'mcp') {
    const target = agent.mcp![scope]!;
    const file = typeof target.file === 'string' ? target.file : target.file(platform);
    const data = parseConfig(target.format, await read(file));
    let value = data;
    for (const part of target.key) value = value?.[part];
    t.like(value, target.entry as object);
    if (seeded) t.deepEqual(data[target.key[0]!].other.command, 'other-server');
  } else if (type === 'skill') {
    const target = agent.skill![scope]!;
    t.true((await read(`${target.dir}/brv/SKILL.md`)).length > 0);
    if (target.attachment) t.true((await read(target.attachment.file)).includes(rulesFooter(agent.name)));
  } else if (type === 'agent') {
    const target = agent.agent![scope]!;
    const text = await read(target.file);
    // what the agent reads: Claude Code's markdown with frontmatter, Codex's TOML
    if (target.file.endsWith('.toml')) t.like(parseToml(text), { name: 'brv-curate' });
    else t.regex(text, /^---\nname: brv-curate\ndescription: .+\ntools: /);
    if (seeded) t.is(await read(`${path.dirname(target.file)}/reviewer${path.extname(target.file)}`), 'Another sub-agent, not brv.\n');
  } else {
    const target = agent.hook![scope]!;
    const data = JSON.parse(await read(target.file));
    const commands = data.hooks.UserPromptSubmit.flatMap((group: any) => group.hooks.map((hook: any) => hook.command));
    t.true(commands.includes('brv hook-prompt-submit'));
    if (seeded) t.true(commands.includes('echo mine'));
  }
}

for (const c of cases) {
  for (const seeded of [false, true]) {
    const title = `${c.agent.id} ${c.type} (${c.scope})${seeded ? ' over existing user content' : ''}: install, re-install, uninstall`;
    test(title, async (t) => {
      const ctx = await scopeIn(c.scope);
      if (seeded) await seedUserContent(ctx, c.agent, c.type);
      const before = await snapshot(ctx.root);

      const installed = await installConnector(ctx, c.agent.id, c.type);
      t.is(installed.status, 'installed');
      t.true(installed.changes.length > 0);
      t.true(installed.changes.every((change) => change.path.startsWith(`${ctx.root}/`)));
      t.true(
        installed.changes.every((change) => (seeded ? ['created', 'added'] : ['created']).includes(change.action)),
        JSON.stringify(installed.changes),
      );
      await checkInstalled(t, c, ctx.root, ctx.platform, seeded);
      const status = await connectorStatus([ctx], c.agent.id);
      t.like(
        status.find((entry) => entry.type === c.type),
        { agent: c.agent.id, type: c.type, scope: c.scope, state: 'installed' },
      );
      const after = await snapshot(ctx.root);

      const again = await installConnector(ctx, c.agent.name.toUpperCase(), c.type);
      t.is(again.status, 'unchanged');
      t.deepEqual(await snapshot(ctx.root), after, 're-install is a no-op');

      const removed = await uninstallConnector(ctx, c.agent.id, c.type);
      t.is(removed.status, 'removed');
      t.deepEqual(await snapshot(ctx.root), before, 'uninstall gives back the previous bytes');
      t.deepEqual(
        (await connectorStatus([ctx], c.agent.id)).filter((entry) => entry.type === c.type),
        [],
      );
      const twice = await uninstallConnector(ctx, c.agent.id, c.type);
      t.is(twice.status, 'not-installed');
      t.deepEqual(await snapshot(ctx.root), before);
    });
  }
}

for (const c of cases) {
  test(`${c.agent.id} ${c.type} (${c.scope}) without brv's record of the install: uninstall takes out only brv's part`, async (t) => {
    const ctx = await scopeIn(c.scope);
    await seedUserContent(ctx, c.agent, c.type);
    const before = await snapshot(ctx.root);
    await installConnector(ctx, c.agent.id, c.type);
    await rm(ctx.manifest);
    t.is((await uninstallConnector(ctx, c.agent.id, c.type)).status, 'removed');
    const after = await snapshot(ctx.root);
    // directories brv made for its own files are not known without the record; everything else is as before
    for (const [entry, value] of Object.entries(before)) t.is(after[entry], value, entry);
    for (const entry of Object.keys(after).filter((entry) => !(entry in before))) t.true(entry.endsWith('/'), entry);
  });
}

test('every type of an agent at once: install each, then one uninstall without --type removes them all', async (t) => {
  for (const agent of AGENTS) {
    for (const scope of ['project', 'global'] as const) {
      const types = CONNECTOR_TYPES.filter((type) => agent[type]?.[scope]);
      if (types.length === 0) continue;
      const ctx = await scopeIn(scope);
      for (const type of types) await seedUserContent(ctx, agent, type);
      const before = await snapshot(ctx.root);
      for (const type of types) t.is((await installConnector(ctx, agent.id, type)).status, 'installed', `${agent.id} ${type}`);
      const removed = await uninstallConnector(ctx, agent.id);
      t.is(removed.status, 'removed');
      t.deepEqual(
        removed.types.filter((r) => types.includes(r.type)).map((r) => r.status),
        types.map(() => 'removed'),
      );
      t.deepEqual(await snapshot(ctx.root), before, `${agent.id} ${scope}`);
    }
  }
});

test('agents whose MCP servers live in their own settings get instructions, and nothing is written', async (t) => {
  t.deepEqual(
    manual.map(({ agent }) => agent.id),
    ['augment-code', 'cline', 'qoder', 'trae', 'warp'],
  );
  for (const { agent } of manual) {
    for (const scope of ['project', 'global'] as const) {
      const ctx = await scopeIn(scope);
      const result = await installConnector(ctx, agent.id, 'mcp');
      t.is(result.status, 'manual');
      t.deepEqual(result.changes, []);
      t.regex(result.manual!.guide, /^https:\/\//);
      t.like(JSON.parse(result.manual!.config), { mcpServers: { brv: { command: 'brv', args: ['mcp'] } } });
      t.deepEqual(await snapshot(ctx.root), {});
      t.like(await uninstallConnector(ctx, agent.id, 'mcp'), { status: 'manual' });
    }
  }
});
