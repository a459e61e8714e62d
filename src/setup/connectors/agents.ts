// The agents brv connects to, as data: where each one reads rules, MCP servers, skills and hooks.
// Paths are relative to the scope's root: the repository's work tree (project) or the user's home
// directory (global). A target absent for a scope means the agent has no such file there.

export const CONNECTOR_TYPES = ['rules', 'mcp', 'skill', 'hook', 'agent'] as const;
export type ConnectorType = (typeof CONNECTOR_TYPES)[number];
export type Scope = 'project' | 'global';
export type ConfigFormat = 'json' | 'toml' | 'yaml';

/** The name brv's MCP server, skill folder and hook go by in every agent's configuration. */
export const SERVER_NAME = 'brv';

export interface RulesTarget {
  file: string;
  /**
   * `shared`: a file the user and other tools also write (AGENTS.md, CLAUDE.md): brv adds its marked
   * block and deletes the file on uninstall only when brv created it. `dedicated`: a file only brv
   * writes (a rules folder entry), created with `frontmatter` and deleted when brv's blocks are gone.
   */
  mode: 'shared' | 'dedicated';
  /** Lines between `---` fences that the agent reads before a dedicated rules file (without the fences). */
  frontmatter?: string;
  /**
   * Where ByteRover keeps this agent's rules when that is another file (reference/brv-spec.md §7.2:
   * `agent-context.*`): installing brv's rules takes ByteRover's block for the agent out of it, and
   * the file goes when nothing else is left, so the agent does not read two sets of rules.
   */
  byterover?: string;
}

export interface McpTarget {
  /** Relative to the scope root; a function where the location depends on the platform. */
  file: string | ((platform: NodeJS.Platform) => string);
  format: ConfigFormat;
  /** Keys from the top of the file to brv's entry, the last one being the server name. */
  key: readonly string[];
  entry: Readonly<Record<string, unknown>>;
}

/** An agent whose MCP servers are configured somewhere brv does not edit (an app's own settings UI). */
export interface ManualMcp {
  guide: string;
  where: string;
  format: ConfigFormat;
  key: readonly string[];
  entry: Readonly<Record<string, unknown>>;
}

export interface SkillTarget {
  /** The skills folder; brv's skill goes in `<dir>/brv/`. */
  dir: string;
  /** An always-loaded instructions file that also gets brv's rules block (agents that load skills only on demand). */
  attachment?: RulesTarget;
}

export interface HookTarget {
  /** A Claude Code settings file; brv adds a UserPromptSubmit hook running `command`. */
  file: string;
  event: 'UserPromptSubmit';
  command: string;
}

/** brv's curate sub-agent: one file brv owns, in the agent's sub-agent folder. */
export interface SubAgentTarget {
  file: string;
  template: 'agent/brv-curate.md' | 'agent/brv-curate.toml';
}

export interface PerScope<T> {
  project?: T;
  global?: T;
}

export interface AgentDefinition {
  /** Slug used on the command line. */
  id: string;
  name: string;
  aliases: readonly string[];
  defaultType: ConnectorType;
  rules?: PerScope<RulesTarget>;
  mcp?: PerScope<McpTarget> & { manual?: ManualMcp };
  skill?: PerScope<SkillTarget>;
  hook?: PerScope<HookTarget>;
  agent?: PerScope<SubAgentTarget>;
}

const STDIO = { command: 'brv', args: ['mcp'] } as const;
const STDIO_TYPED = { type: 'stdio', command: 'brv', args: ['mcp'] } as const;
const MCP_SERVERS = ['mcpServers', SERVER_NAME] as const;

const json = (file: McpTarget['file'], key: readonly string[] = MCP_SERVERS, entry: McpTarget['entry'] = STDIO): McpTarget => ({
  file,
  format: 'json',
  key,
  entry,
});
const shared = (file: string): RulesTarget => ({ file, mode: 'shared' });
const dedicated = (file: string, frontmatter?: string, byterover?: string): RulesTarget => ({
  file,
  mode: 'dedicated',
  ...(frontmatter ? { frontmatter } : {}),
  ...(byterover ? { byterover } : {}),
});
const skills = (project: string | undefined, global: string | undefined): PerScope<SkillTarget> => ({
  ...(project ? { project: { dir: project } } : {}),
  ...(global ? { global: { dir: global } } : {}),
});
const manual = (guide: string, where: string, entry: ManualMcp['entry'] = STDIO, key: readonly string[] = MCP_SERVERS): ManualMcp => ({
  guide,
  where,
  format: 'json',
  key,
  entry,
});

/** Where Claude Desktop keeps its configuration, relative to the home directory. */
export function claudeDesktopConfig(platform: NodeJS.Platform): string {
  if (platform === 'darwin') return 'Library/Application Support/Claude/claude_desktop_config.json';
  if (platform === 'win32') return 'AppData/Roaming/Claude/claude_desktop_config.json';
  return '.config/Claude/claude_desktop_config.json';
}

/** Where ByteRover installs its `brv-curate` sub-agent too (reference/brv-spec.md §7.3), so brv's replaces it. */
const CLAUDE_SUB_AGENT: SubAgentTarget = { file: '.claude/agents/brv-curate.md', template: 'agent/brv-curate.md' };
const CODEX_SUB_AGENT: SubAgentTarget = { file: '.codex/agents/brv-curate.toml', template: 'agent/brv-curate.toml' };

const CLAUDE_HOOK = { event: 'UserPromptSubmit', command: 'brv hook-prompt-submit' } as const;
const OPENCODE_ENTRY = { type: 'local', command: ['brv', 'mcp'], enabled: true } as const;

/**
 * Every agent brv knows, in ByteRover's list order (reference/brv-spec.md §7.2). Deliberate
 * differences from ByteRover: dedicated rules files are named `brv.md` (never someone's
 * `agent-context.md`); Zed gets `.rules` and Trae `.trae/rules/project_rules.md` (the files those
 * tools read); MCP configs whose location and format are documented are written (OpenCode, Qwen
 * Code, Auggie CLI) instead of printing a guide; Codex's MCP server can go in the project's
 * `.codex/config.toml` as well as `~/.codex/config.toml`.
 */
export const AGENTS: readonly AgentDefinition[] = [
  {
    id: 'amp',
    name: 'Amp',
    aliases: [],
    defaultType: 'skill',
    rules: { project: shared('AGENTS.md'), global: shared('.config/amp/AGENTS.md') },
    mcp: {
      project: json('.vscode/settings.json', ['amp.mcpServers', SERVER_NAME]),
      global: json('.config/amp/settings.json', ['amp.mcpServers', SERVER_NAME]),
    },
    skill: skills('.agents/skills', '.config/agents/skills'),
  },
  {
    id: 'antigravity',
    name: 'Antigravity',
    aliases: [],
    defaultType: 'skill',
    rules: { project: dedicated('.agent/rules/brv.md', 'trigger: always_on', '.agent/rules/agent-context.md') },
    mcp: { global: json('.gemini/antigravity/mcp_config.json') },
    skill: skills('.agent/skills', '.gemini/antigravity/skills'),
  },
  {
    id: 'auggie-cli',
    name: 'Auggie CLI',
    aliases: ['auggie'],
    defaultType: 'skill',
    rules: { project: dedicated('.augment/rules/brv.md', 'type: always_apply', '.augment/rules/agent-context.md') },
    mcp: { global: json('.augment/settings.json') },
    skill: skills('.augment/skills', '.augment/skills'),
  },
  {
    id: 'augment-code',
    name: 'Augment Code',
    aliases: ['augment'],
    defaultType: 'mcp',
    rules: { project: dedicated('.augment/rules/brv.md', 'type: always_apply', '.augment/rules/agent-context.md') },
    mcp: {
      manual: manual('https://docs.augmentcode.com/setup-augment/mcp#import-from-json', 'Augment settings panel → MCP → Import from JSON'),
    },
  },
  {
    id: 'claude-code',
    name: 'Claude Code',
    aliases: ['claude'],
    // MCP by default: `brv connectors install claude-code` alone gives the agent brv's tools.
    defaultType: 'mcp',
    rules: { project: shared('CLAUDE.md'), global: shared('.claude/CLAUDE.md') },
    mcp: { project: json('.mcp.json', MCP_SERVERS, STDIO_TYPED), global: json('.claude.json', MCP_SERVERS, STDIO_TYPED) },
    skill: skills('.claude/skills', '.claude/skills'),
    hook: { project: { file: '.claude/settings.local.json', ...CLAUDE_HOOK }, global: { file: '.claude/settings.json', ...CLAUDE_HOOK } },
    agent: { project: CLAUDE_SUB_AGENT, global: CLAUDE_SUB_AGENT },
  },
  {
    id: 'claude-desktop',
    name: 'Claude Desktop',
    aliases: [],
    defaultType: 'mcp',
    mcp: { global: json(claudeDesktopConfig) },
  },
  {
    id: 'cline',
    name: 'Cline',
    aliases: [],
    defaultType: 'mcp',
    rules: { project: dedicated('.clinerules/brv.md', undefined, '.clinerules/agent-context.md') },
    mcp: {
      manual: manual(
        'https://docs.cline.bot/mcp/configuring-mcp-servers#editing-mcp-settings-files',
        "Cline's MCP Servers panel → Configure → cline_mcp_settings.json",
      ),
    },
  },
  {
    id: 'codex',
    name: 'Codex',
    aliases: [],
    defaultType: 'skill',
    rules: { project: shared('AGENTS.md'), global: shared('.codex/AGENTS.md') },
    mcp: {
      project: { file: '.codex/config.toml', format: 'toml', key: ['mcp_servers', SERVER_NAME], entry: STDIO },
      global: { file: '.codex/config.toml', format: 'toml', key: ['mcp_servers', SERVER_NAME], entry: STDIO },
    },
    skill: skills('.agents/skills', '.agents/skills'),
    agent: { project: CODEX_SUB_AGENT, global: CODEX_SUB_AGENT },
  },
  {
    id: 'cursor',
    name: 'Cursor',
    aliases: [],
    defaultType: 'skill',
    rules: {
      project: dedicated(
        '.cursor/rules/brv.mdc',
        'description: brv project memory: query it before work, curate what you learn\nalwaysApply: true',
        '.cursor/rules/agent-context.mdc',
      ),
    },
    mcp: { project: json('.cursor/mcp.json'), global: json('.cursor/mcp.json') },
    skill: skills('.cursor/skills', '.cursor/skills'),
  },
  {
    id: 'gemini-cli',
    name: 'Gemini CLI',
    aliases: ['gemini'],
    defaultType: 'skill',
    rules: { project: shared('GEMINI.md'), global: shared('.gemini/GEMINI.md') },
    mcp: { project: json('.gemini/settings.json'), global: json('.gemini/settings.json') },
    skill: skills('.gemini/skills', '.gemini/skills'),
  },
  {
    id: 'github-copilot',
    name: 'Github Copilot',
    aliases: ['copilot'],
    defaultType: 'skill',
    rules: { project: shared('.github/copilot-instructions.md') },
    mcp: { project: json('.vscode/mcp.json', ['servers', SERVER_NAME], STDIO_TYPED) },
    skill: skills('.github/skills', '.copilot/skills'),
  },
  {
    id: 'hermes',
    name: 'Hermes',
    aliases: [],
    defaultType: 'skill',
    mcp: { global: { file: '.hermes/config.yaml', format: 'yaml', key: ['mcp_servers', SERVER_NAME], entry: STDIO } },
    skill: { global: { dir: '.hermes/skills', attachment: shared('.hermes/SOUL.md') } },
  },
  {
    id: 'junie',
    name: 'Junie',
    aliases: [],
    defaultType: 'skill',
    rules: { project: shared('.junie/guidelines.md') },
    mcp: { project: json('.junie/mcp/mcp.json') },
    skill: skills('.junie/skills', '.junie/skills'),
  },
  {
    id: 'kilo-code',
    name: 'Kilo Code',
    aliases: ['kilo'],
    defaultType: 'skill',
    rules: { project: dedicated('.kilocode/rules/brv.md', undefined, '.kilocode/rules/agent-context.md') },
    mcp: { project: json('.kilocode/mcp.json') },
    skill: skills('.kilocode/skills', '.kilocode/skills'),
  },
  {
    id: 'kiro',
    name: 'Kiro',
    aliases: [],
    defaultType: 'skill',
    rules: {
      project: dedicated('.kiro/steering/brv.md', 'inclusion: always', '.kiro/steering/agent-context.md'),
      global: dedicated('.kiro/steering/brv.md', 'inclusion: always'),
    },
    mcp: { project: json('.kiro/settings/mcp.json'), global: json('.kiro/settings/mcp.json') },
    skill: skills('.kiro/skills', '.kiro/skills'),
  },
  {
    id: 'openclaude',
    name: 'OpenClaude',
    aliases: [],
    defaultType: 'skill',
    rules: { project: shared('CLAUDE.md'), global: shared('.claude/CLAUDE.md') },
    mcp: { project: json('.mcp.json', MCP_SERVERS, STDIO_TYPED) },
    skill: skills('.claude/skills', '.claude/skills'),
  },
  {
    id: 'openclaw',
    name: 'OpenClaw',
    aliases: [],
    defaultType: 'skill',
    skill: { global: { dir: '.openclaw/skills', attachment: shared('.openclaw/workspace/AGENTS.md') } },
  },
  {
    id: 'opencode',
    name: 'OpenCode',
    aliases: [],
    defaultType: 'skill',
    rules: { project: shared('AGENTS.md'), global: shared('.config/opencode/AGENTS.md') },
    mcp: {
      project: json('opencode.json', ['mcp', SERVER_NAME], OPENCODE_ENTRY),
      global: json('.config/opencode/opencode.json', ['mcp', SERVER_NAME], OPENCODE_ENTRY),
    },
    skill: skills('.opencode/skills', '.config/opencode/skills'),
  },
  {
    id: 'qoder',
    name: 'Qoder',
    aliases: [],
    defaultType: 'skill',
    rules: { project: dedicated('.qoder/rules/brv.md', 'trigger: always_on', '.qoder/rules/agent-context.md') },
    mcp: {
      manual: manual('https://docs.qoder.com/user-guide/chat/model-context-protocol#configure-mcp-servers', 'Qoder Settings → MCP → Add'),
    },
    skill: skills('.qoder/skills', '.qoder/skills'),
  },
  {
    id: 'qwen-code',
    name: 'Qwen Code',
    aliases: ['qwen'],
    defaultType: 'mcp',
    rules: { project: shared('QWEN.md'), global: shared('.qwen/QWEN.md') },
    mcp: { project: json('.qwen/settings.json'), global: json('.qwen/settings.json') },
  },
  {
    id: 'roo-code',
    name: 'Roo Code',
    aliases: ['roo'],
    defaultType: 'skill',
    rules: { project: dedicated('.roo/rules/brv.md', undefined, '.roo/rules/agent-context.md') },
    mcp: { project: json('.roo/mcp.json') },
    skill: skills('.roo/skills', '.roo/skills'),
  },
  {
    id: 'trae',
    name: 'Trae.ai',
    aliases: ['trae-ai', 'trae.ai'],
    defaultType: 'skill',
    rules: { project: shared('.trae/rules/project_rules.md') },
    mcp: {
      manual: manual('https://docs.trae.ai/ide/add-mcp-servers?_lang=en', 'Trae AI panel → Settings → MCP → Add → Configure manually'),
    },
    skill: skills('.trae/skills', '.trae/skills'),
  },
  {
    id: 'warp',
    name: 'Warp',
    aliases: [],
    defaultType: 'skill',
    rules: { project: shared('WARP.md') },
    mcp: {
      manual: manual('https://docs.warp.dev/knowledge-and-collaboration/mcp#adding-an-mcp-server', 'Warp Drive → MCP Servers → Add', {
        ...STDIO,
        env: {},
        start_on_launch: true,
      }),
    },
    skill: skills('.warp/skills', '.warp/skills'),
  },
  {
    id: 'windsurf',
    name: 'Windsurf',
    aliases: [],
    defaultType: 'skill',
    rules: {
      project: dedicated('.windsurf/rules/brv.md', 'trigger: always_on', '.windsurf/rules/agent-context.md'),
      global: shared('.codeium/windsurf/memories/global_rules.md'),
    },
    mcp: { global: json('.codeium/windsurf/mcp_config.json') },
    skill: skills('.windsurf/skills', '.codeium/windsurf/skills'),
  },
  {
    id: 'zed',
    name: 'Zed',
    aliases: [],
    defaultType: 'mcp',
    rules: { project: { ...shared('.rules'), byterover: 'agent-context.rules' } },
    mcp: {
      project: json('.zed/settings.json', ['context_servers', SERVER_NAME]),
      global: json('.config/zed/settings.json', ['context_servers', SERVER_NAME]),
    },
  },
];

export function supportedTypes(agent: AgentDefinition): ConnectorType[] {
  return CONNECTOR_TYPES.filter((type) => agent[type] !== undefined);
}

function normalize(name: string): string {
  return name
    .trim()
    .toLowerCase()
    .replace(/[\s_]+/g, '-');
}

/** The agent a user named: its id, display name or an alias, case-insensitively; undefined when none. */
export function findAgent(name: string): AgentDefinition | undefined {
  const wanted = normalize(name);
  return AGENTS.find((agent) => [agent.id, agent.name, ...agent.aliases].some((candidate) => normalize(candidate) === wanted));
}
