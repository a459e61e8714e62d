import { lstat, mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { AgentDefinition, ConnectorType, McpTarget, Scope } from '../../src/setup/connectors/agents.js';
import type { ConnectorScope } from '../../src/setup/connectors/connectors.js';
import { tempDir } from '../helpers/repo.js';

/** A root (work tree or home) and a manifest kept outside it, so snapshots of the root see only connector files. */
export async function scopeIn(scope: Scope, platform: NodeJS.Platform = 'linux'): Promise<ConnectorScope> {
  const root = await tempDir(scope === 'global' ? 'brv-home-' : 'brv-work-');
  const state = await tempDir('brv-state-');
  return { scope, root, manifest: path.join(state, 'connectors.json'), platform };
}

/** Every file (content and mode), directory and link under `dir`, by relative path. */
export async function snapshot(dir: string): Promise<Record<string, string>> {
  const result: Record<string, string> = {};
  const walk = async (current: string): Promise<void> => {
    for (const entry of await readdir(current)) {
      const full = path.join(current, entry);
      const relative = path.relative(dir, full);
      const stats = await lstat(full);
      if (stats.isSymbolicLink()) result[relative] = `link -> ${await readlink(full)}`;
      else if (stats.isDirectory()) {
        result[`${relative}/`] = `dir ${(stats.mode & 0o777).toString(8)}`;
        await walk(full);
      } else result[relative] = `${(stats.mode & 0o777).toString(8)} ${await readFile(full, 'utf8')}`;
    }
  };
  await walk(dir);
  return result;
}

export async function put(root: string, relative: string, content: string): Promise<string> {
  const file = path.join(root, relative);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(file, content);
  return file;
}

function mcpFile(target: McpTarget, platform: NodeJS.Platform): string {
  return typeof target.file === 'string' ? target.file : target.file(platform);
}

/**
 * Puts user content where a connector type writes: prose in rules files, other servers and comments
 * in MCP configurations, another hook, another skill beside brv's.
 */
export async function seedUserContent(ctx: ConnectorScope, agent: AgentDefinition, type: ConnectorType): Promise<void> {
  const { root, scope, platform } = ctx;
  switch (type) {
    case 'rules': {
      const target = agent.rules![scope]!;
      // no final newline on purpose: uninstall must give back these exact bytes
      await put(root, target.file, '# House rules\r\n\r\nUse tabs.\r\n<!-- a comment of ours -->\r\nThe end, no newline');
      return;
    }
    case 'mcp': {
      const target = agent.mcp![scope]!;
      const file = mcpFile(target, platform);
      const [table] = target.key;
      if (target.format === 'json') {
        await put(
          root,
          file,
          `// settings of ours\n{\n\t"theme": "dark", // keep me\n\t${JSON.stringify(table)}: {\n\t\t"other": { "command": "other-server", "args": [] }\n\t},\n\t"zoom": 1.5\n}\n`,
        );
      } else if (target.format === 'toml') {
        await put(root, file, `# codex settings\nmodel = "o3"\n\n[${table}.other]\ncommand = "other-server" # theirs\nargs = []\n`);
      } else {
        await put(
          root,
          file,
          `# hermes settings\nmodel: big\n${table}:\n  other:\n    command: other-server # theirs\n    args: []\nterminal: local\n`,
        );
      }
      return;
    }
    case 'skill': {
      const target = agent.skill![scope]!;
      await put(root, `${target.dir}/other-skill/SKILL.md`, '---\nname: other\n---\nNot brv.\n');
      if (target.attachment) await put(root, target.attachment.file, '# Soul\n\nBe kind.\n');
      return;
    }
    case 'hook': {
      const target = agent.hook![scope]!;
      await put(
        root,
        target.file,
        '{\n  "permissions": { "allow": ["Bash(ls)"] },\n  "hooks": {\n    "UserPromptSubmit": [\n      { "hooks": [{ "type": "command", "command": "echo mine" }] }\n    ]\n  }\n}\n',
      );
      return;
    }
    case 'agent': {
      const target = agent.agent![scope]!;
      await put(root, path.join(path.dirname(target.file), `reviewer${path.extname(target.file)}`), 'Another sub-agent, not brv.\n');
      return;
    }
  }
}
