import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../base/errors.js';
import { brvPackageRoot } from '../base/package-root.js';

/**
 * The texts brv gives agents, shipped in `templates/` (one source of truth for connectors, the MCP
 * server and hooks):
 * - rules.md          the rules block (query before work, curate after learning, the protocol in brief)
 * - mcp-workflow.md   the same workflow for agents that use brv through MCP tools
 * - prompt-hook.md    printed into every prompt by the Claude Code UserPromptSubmit hook
 * - skill/SKILL.md    the skill bundle (frontmatter name ≤ 64 chars, description ≤ 1,024), plus its
 *                     other files under skill/
 * - agent/brv-curate.md, agent/brv-curate.toml
 *                     the curate sub-agent for Claude Code and Codex (the `agent` connector type)
 */
export const TEMPLATE_NAMES = [
  'rules.md',
  'mcp-workflow.md',
  'prompt-hook.md',
  'skill/SKILL.md',
  'agent/brv-curate.md',
  'agent/brv-curate.toml',
] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number] | `skill/${string}`;

export function templatesDirectory(): string {
  return path.join(brvPackageRoot(), 'templates');
}

export async function readTemplate(name: TemplateName): Promise<string> {
  if (name.includes('..') || path.isAbsolute(name)) throw new BrvError('invalid-template', `Not a template name: ${name}`);
  const file = path.join(templatesDirectory(), name);
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    throw new BrvError(
      'package-files-missing',
      `Cannot read brv's template ${file} (${(error as NodeJS.ErrnoException).code}). Reinstall brv.`,
    );
  }
}
