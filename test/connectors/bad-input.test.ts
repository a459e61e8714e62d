import test from 'ava';
import { chmod, mkdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { connectorStatus, installConnector, projectScope, uninstallConnector } from '../../src/setup/connectors/connectors.js';
import { applyWrites } from '../../src/setup/connectors/files.js';
import { renderRulesBlock } from '../../src/setup/connectors/rules.js';
import { tempDir } from '../helpers/repo.js';
import { put, scopeIn, snapshot } from './helpers.js';

async function refused(t: any, promise: Promise<unknown>, kind: string, message?: RegExp) {
  const error = (await t.throwsAsync(promise)) as any;
  t.is(error?.kind, kind, error?.message);
  if (message) t.regex(error.message, message);
}

test('malformed JSON, TOML, YAML and rules files are left untouched with config-malformed naming the file', async (t) => {
  const project = await scopeIn('project');
  const home = await scopeIn('global');
  const broken = [
    { ctx: project, file: '.cursor/mcp.json', content: '{ "mcpServers": { "x": 1 ', agent: 'cursor', type: 'mcp' },
    { ctx: project, file: '.codex/config.toml', content: '[mcp_servers.x\ncommand = 1\n', agent: 'codex', type: 'mcp' },
    { ctx: home, file: '.hermes/config.yaml', content: 'mcp_servers:\n  x: [unclosed\n', agent: 'hermes', type: 'mcp' },
    { ctx: project, file: 'CLAUDE.md', content: '# Mine\n<!-- BEGIN BRV RULES -->\nhalf a block\n', agent: 'claude-code', type: 'rules' },
    { ctx: project, file: '.vscode/settings.json', content: '{"amp.mcpServers": {}} trailing', agent: 'amp', type: 'mcp' },
    { ctx: project, file: '.claude/settings.local.json', content: '{"hooks": {"UserPromptSubmit": [', agent: 'claude', type: 'hook' },
  ] as const;
  for (const { ctx, file, content, agent, type } of broken) {
    await put(ctx.root, file, content);
    const before = await snapshot(ctx.root);
    await refused(
      t,
      installConnector(ctx, agent, type),
      'config-malformed',
      new RegExp(`${file.replace(/[.]/g, '\\.')}.*untouched|${file.replace(/[.]/g, '\\.')}.*by hand`),
    );
    await refused(t, uninstallConnector(ctx, agent, type), 'config-malformed');
    t.deepEqual(await snapshot(ctx.root), before, file);
    const status = await connectorStatus([ctx], agent);
    t.like(
      status.find((entry) => entry.type === type),
      { state: 'error', error: { kind: 'config-malformed' } },
    );
  }
  // not UTF-8
  await put(project.root, '.gemini/settings.json', '');
  await writeFile(path.join(project.root, '.gemini/settings.json'), Buffer.from([0x7b, 0xff, 0x7d]));
  await refused(t, installConnector(project, 'gemini', 'mcp'), 'config-malformed', /not UTF-8/);
});

test('a value of the wrong kind where brv would add its key is refused with config-conflict', async (t) => {
  const ctx = await scopeIn('project');
  await put(ctx.root, '.mcp.json', '{ "mcpServers": ["not", "an", "object"] }\n');
  await put(ctx.root, '.claude/settings.local.json', '{ "hooks": { "UserPromptSubmit": "echo" } }\n');
  const before = await snapshot(ctx.root);
  await refused(t, installConnector(ctx, 'claude', 'mcp'), 'config-conflict', /mcpServers is not an object/);
  await refused(t, installConnector(ctx, 'claude', 'hook'), 'config-conflict', /not a list/);
  t.deepEqual(await snapshot(ctx.root), before);
});

test('read-only files and directories: config-not-writable, nothing written', async (t) => {
  const ctx = await scopeIn('project');
  const file = await put(ctx.root, '.cursor/mcp.json', '{}\n');
  await chmod(file, 0o444);
  const before = await snapshot(ctx.root);
  await refused(t, installConnector(ctx, 'cursor', 'mcp'), 'config-not-writable', /mcp\.json is read-only/);
  t.deepEqual(await snapshot(ctx.root), before);

  await chmod(file, 0o644);
  await installConnector(ctx, 'cursor', 'mcp');
  await chmod(file, 0o444);
  await refused(t, uninstallConnector(ctx, 'cursor', 'mcp'), 'config-not-writable');
  t.like(await connectorStatus([ctx], 'cursor'), [{ type: 'mcp', state: 'installed' }]);
  await chmod(file, 0o644);
  t.is((await uninstallConnector(ctx, 'cursor', 'mcp')).status, 'removed');
  t.is(await readFile(file, 'utf8'), '{}\n');
  t.is((await stat(file)).mode & 0o777, 0o644, 'the file keeps its mode');

  const rules = await tempDir();
  await mkdir(path.join(rules, '.roo'));
  await chmod(path.join(rules, '.roo'), 0o555);
  const locked = { ...ctx, root: rules };
  await refused(t, installConnector(locked, 'roo', 'rules'), 'config-not-writable', /\.roo/);
  t.deepEqual(await snapshot(rules), { '.roo/': 'dir 555' });
});

test('a file mode is kept when brv rewrites a file', async (t) => {
  const ctx = await scopeIn('project');
  const file = await put(ctx.root, 'AGENTS.md', '# Agents\n');
  await chmod(file, 0o600);
  await installConnector(ctx, 'codex', 'rules');
  t.is((await stat(file)).mode & 0o777, 0o600);
});

test('symbolic links: a linked config file is refused even inside the repository; a linked folder must stay inside', async (t) => {
  const ctx = await scopeIn('project');
  const real = await put(ctx.root, 'shared/mcp.json', '{}\n');
  await mkdir(path.join(ctx.root, '.cursor'));
  await symlink(real, path.join(ctx.root, '.cursor/mcp.json'));
  await symlink(path.join(ctx.root, 'shared'), path.join(ctx.root, 'CLAUDE.md'));
  const before = await snapshot(ctx.root);
  await refused(t, installConnector(ctx, 'cursor', 'mcp'), 'config-is-symlink', /symbolic link/);
  await refused(t, installConnector(ctx, 'claude', 'rules'), 'config-is-symlink');
  t.deepEqual(await snapshot(ctx.root), before);

  const outside = await tempDir('brv-outside-');
  await symlink(outside, path.join(ctx.root, '.github'));
  await refused(t, installConnector(ctx, 'copilot', 'rules'), 'path-outside-root', /\.github leads outside/);
  await refused(t, installConnector(ctx, 'copilot', 'skill'), 'path-outside-root');
  t.deepEqual(await snapshot(outside), {}, 'nothing written outside the repository');

  // a link that stays inside the repository is followed
  await mkdir(path.join(ctx.root, 'config/gemini'), { recursive: true });
  await symlink(path.join(ctx.root, 'config/gemini'), path.join(ctx.root, '.gemini'));
  t.is((await installConnector(ctx, 'gemini', 'mcp')).status, 'installed');
  t.truthy(await readFile(path.join(ctx.root, 'config/gemini/settings.json'), 'utf8'));

  // brv's own skill folder as a link
  await mkdir(path.join(ctx.root, '.cursor/skills'), { recursive: true });
  await symlink(path.join(ctx.root, 'shared'), path.join(ctx.root, '.cursor/skills/brv'));
  await refused(t, installConnector(ctx, 'cursor', 'skill'), 'config-is-symlink');
});

test('two agents share AGENTS.md, each with its own block; uninstalling one keeps the other', async (t) => {
  const ctx = await scopeIn('project');
  const file = path.join(ctx.root, 'AGENTS.md');
  await installConnector(ctx, 'codex', 'rules');
  await installConnector(ctx, 'amp', 'rules');
  await installConnector(ctx, 'opencode', 'rules');
  const text = await readFile(file, 'utf8');
  t.deepEqual(
    [...text.matchAll(/Generated by brv for (.+)/g)].map((m) => m[1]),
    ['Codex', 'Amp', 'OpenCode'],
  );
  t.like(await uninstallConnector(ctx, 'amp', 'rules'), { status: 'removed', types: [{ changes: [{ action: 'removed' }] }] });
  const left = await readFile(file, 'utf8');
  t.deepEqual(
    [...left.matchAll(/Generated by brv for (.+)/g)].map((m) => m[1]),
    ['Codex', 'OpenCode'],
  );
  t.like(await connectorStatus([ctx], 'codex'), [{ type: 'rules', state: 'installed' }]);
  t.deepEqual(await connectorStatus([ctx], 'amp'), []);
  await uninstallConnector(ctx, 'codex', 'rules');
  t.like(await uninstallConnector(ctx, 'opencode', 'rules'), { types: [{ changes: [{ action: 'deleted' }] }] });
  t.deepEqual(await snapshot(ctx.root), {}, 'the file brv created is gone with the last block');
});

test('the same MCP entry and skill folder used by two agents stay until the last one is uninstalled', async (t) => {
  const ctx = await scopeIn('project');
  await installConnector(ctx, 'claude-code', 'mcp');
  t.like(await installConnector(ctx, 'openclaude', 'mcp'), { status: 'unchanged' });
  const kept = await uninstallConnector(ctx, 'claude-code', 'mcp');
  t.like(kept, { status: 'kept', types: [{ status: 'kept', changes: [{ action: 'kept', note: 'still used by OpenClaude' }] }] });
  t.like(await connectorStatus([ctx], 'openclaude'), [{ type: 'mcp', state: 'installed' }]);
  t.like(await uninstallConnector(ctx, 'openclaude', 'mcp'), { status: 'removed', types: [{ changes: [{ action: 'deleted' }] }] });
  t.deepEqual(await snapshot(ctx.root), {});

  await installConnector(ctx, 'codex', 'skill');
  await installConnector(ctx, 'amp', 'skill');
  t.like(await uninstallConnector(ctx, 'amp'), { types: [{ type: 'rules' }, { type: 'mcp' }, { type: 'skill', status: 'kept' }] });
  t.like(await connectorStatus([ctx], 'codex'), [{ type: 'skill', state: 'installed' }]);
  await uninstallConnector(ctx, 'codex');
  t.deepEqual(await snapshot(ctx.root), {});
});

test('an older brv block or entry is outdated; install updates it and uninstall still restores the original bytes', async (t) => {
  const ctx = await scopeIn('project');
  const original = '# Claude\n\nNotes.\n';
  const file = await put(ctx.root, 'CLAUDE.md', original);
  await put(ctx.root, '.mcp.json', '{\n  "mcpServers": {}\n}\n');
  await installConnector(ctx, 'claude', 'rules');
  await installConnector(ctx, 'claude', 'mcp');
  const current = await readFile(file, 'utf8');
  await writeFile(
    file,
    current.replace(/<!-- BEGIN BRV RULES -->[^]*<!-- END BRV RULES -->/, renderRulesBlock('Old rules.', 'Claude Code')),
  );
  await writeFile(path.join(ctx.root, '.mcp.json'), '{\n  "mcpServers": {"brv": {"command": "old-brv"}}\n}\n');
  t.like(await connectorStatus([ctx], 'claude'), [
    { type: 'rules', state: 'outdated' },
    { type: 'mcp', state: 'outdated' },
  ]);
  t.like(await installConnector(ctx, 'claude', 'rules'), { status: 'updated', changes: [{ action: 'updated' }] });
  t.like(await installConnector(ctx, 'claude', 'mcp'), { status: 'updated' });
  t.is(await readFile(file, 'utf8'), current);
  await uninstallConnector(ctx, 'claude');
  t.is(await readFile(file, 'utf8'), original);
  t.is(await readFile(path.join(ctx.root, '.mcp.json'), 'utf8'), '{\n  "mcpServers": {}\n}\n');
});

test("edits made after install are kept: uninstall takes out only brv's part", async (t) => {
  const ctx = await scopeIn('project');
  await installConnector(ctx, 'cursor', 'mcp');
  await installConnector(ctx, 'codex', 'mcp');
  const mcp = path.join(ctx.root, '.cursor/mcp.json');
  const text = await readFile(mcp, 'utf8');
  await writeFile(mcp, text.replace('"mcpServers": {', '"mcpServers": {\n    "later": { "command": "later" },'));
  const toml = path.join(ctx.root, '.codex/config.toml');
  await writeFile(toml, `model = "o3"\n\n${await readFile(toml, 'utf8')}\n[profiles.x]\nmodel = "y"\n`);
  await uninstallConnector(ctx, 'cursor');
  await uninstallConnector(ctx, 'codex');
  t.deepEqual(JSON.parse(await readFile(mcp, 'utf8')), { mcpServers: { later: { command: 'later' } } });
  t.is(await readFile(toml, 'utf8'), 'model = "o3"\n\n[profiles.x]\nmodel = "y"\n');
});

test('a failing file stops the whole install: no skill files without their attachment', async (t) => {
  const home = await scopeIn('global');
  const soul = await put(home.root, '.hermes/SOUL.md', '# Soul\n');
  await chmod(soul, 0o444);
  await refused(t, installConnector(home, 'hermes'), 'config-not-writable', /SOUL\.md/);
  t.deepEqual(Object.keys(await snapshot(home.root)).sort(), ['.hermes/', '.hermes/SOUL.md']);
  await chmod(soul, 0o644);
  await writeFile(soul, '<!-- END BRV RULES -->\n');
  await refused(t, installConnector(home, 'hermes', 'skill'), 'config-malformed');
  t.deepEqual(Object.keys(await snapshot(home.root)).sort(), ['.hermes/', '.hermes/SOUL.md']);
});

test('types and scopes an agent lacks, unknown agents, bare repositories: typed errors', async (t) => {
  const project = await scopeIn('project');
  const home = await scopeIn('global');
  await refused(
    t,
    installConnector(project, 'claude-desktop'),
    'scope-not-supported',
    /Claude Desktop reads its mcp only from your home directory \(~\/\.config\/Claude\/claude_desktop_config\.json\).*--global/,
  );
  await refused(t, installConnector(project, 'windsurf', 'mcp'), 'scope-not-supported', /--global/);
  await refused(t, installConnector(home, 'copilot', 'mcp'), 'scope-not-supported', /without --global/);
  await refused(t, installConnector(project, 'zed', 'skill'), 'unsupported-type', /Zed has no skill connector; it supports rules, mcp/);
  await refused(t, installConnector(project, 'cursor', 'hook'), 'unsupported-type');
  const unknown = (await t.throwsAsync(installConnector(project, 'vim'))) as any;
  t.is(unknown.kind, 'unknown-agent');
  t.regex(unknown.message, /Unknown agent "vim"\. Agents: amp, antigravity, .*claude-code.*zed\./);
  t.is(unknown.details.agents.length, 25);
  await refused(t, uninstallConnector(project, 'vim'), 'unknown-agent');
  t.throws(() => projectScope({ workTree: undefined, commonDir: '/x' }), { message: /bare/ });
  t.deepEqual(await snapshot(project.root), {});
  t.deepEqual(await snapshot(home.root), {});
  t.is(
    (await installConnector(home, 'claude-desktop')).changes[0]!.path,
    path.join(home.root, '.config/Claude/claude_desktop_config.json'),
  );
  t.is(
    (await installConnector({ ...home, platform: 'darwin' }, 'claude-desktop')).changes[0]!.path,
    path.join(home.root, 'Library/Application Support/Claude/claude_desktop_config.json'),
  );
});

test('a missing or corrupt manifest never fails a command', async (t) => {
  const ctx = await scopeIn('project');
  await mkdir(path.dirname(ctx.manifest), { recursive: true });
  await writeFile(ctx.manifest, 'not json');
  t.is((await installConnector(ctx, 'cursor', 'mcp')).status, 'installed');
  await rm(ctx.manifest);
  t.is((await uninstallConnector(ctx, 'cursor', 'mcp')).status, 'removed');
  t.deepEqual(Object.keys(await snapshot(ctx.root)), ['.cursor/', '.cursor/mcp.json']);
  t.is(await readFile(path.join(ctx.root, '.cursor/mcp.json'), 'utf8'), '{\n  "mcpServers": {}\n}\n');
});

test('types installed and uninstalled one at a time, in any order, leave no directory behind', async (t) => {
  for (const order of [
    ['skill', 'hook', 'rules', 'mcp'],
    ['hook', 'skill', 'mcp', 'rules'],
  ] as const) {
    const ctx = await scopeIn('project');
    for (const type of order) await installConnector(ctx, 'claude-code', type);
    await installConnector(ctx, 'cursor', 'skill');
    for (const type of order) t.is((await uninstallConnector(ctx, 'claude-code', type)).status, 'removed');
    t.deepEqual(
      Object.keys(await snapshot(ctx.root)).filter((entry) => !entry.startsWith('.cursor')),
      [],
    );
    await uninstallConnector(ctx, 'cursor');
    t.deepEqual(await snapshot(ctx.root), {});
  }
  const home = await scopeIn('global');
  await installConnector(home, 'kiro', 'rules');
  await installConnector(home, 'kiro', 'mcp');
  await installConnector(home, 'kiro', 'skill');
  await uninstallConnector(home, 'kiro', 'rules');
  await uninstallConnector(home, 'kiro', 'skill');
  await uninstallConnector(home, 'kiro', 'mcp');
  t.deepEqual(await snapshot(home.root), {});
});

test('a write failing part-way puts back the files already written', async (t) => {
  const dir = await tempDir();
  const first = await put(dir, 'a.json', '{"a": 1}\n');
  await put(dir, 'blocker', 'a file where a directory should be\n');
  const before = await snapshot(dir);
  const error = (await t.throwsAsync(
    applyWrites([
      { path: first, before: '{"a": 1}\n', after: '{"a": 2}\n', mode: 0o644 },
      { path: path.join(dir, 'new/sub/b.json'), before: undefined, after: '{}\n', mode: undefined },
      { path: path.join(dir, 'blocker/c.json'), before: undefined, after: '{}\n', mode: undefined },
    ]),
  )) as any;
  t.is(error.kind, 'config-not-writable');
  t.regex(error.message, /restored/);
  t.deepEqual(await snapshot(dir), before);
  const changed = (await t.throwsAsync(applyWrites([{ path: first, before: 'something else', after: '{}', mode: undefined }]))) as any;
  t.is(changed.kind, 'config-changed');
});
