// The texts brv ships for agents. Its own module, so that the prompt hook (run before every prompt)
// loads nothing else of brv.

/** Claude Code's prompt hook text ("query first, curate after"). */
export async function promptHookText(): Promise<string> {
  const { readTemplate } = await import('../setup/templates.js');
  return readTemplate('prompt-hook.md');
}

/** The workflow an MCP server gives its clients as instructions (undefined if the file is missing). */
export async function mcpInstructions(): Promise<string | undefined> {
  const { readTemplate } = await import('../setup/templates.js');
  return readTemplate('mcp-workflow.md').catch(() => undefined);
}

/** brv's version (its package.json). */
export async function brvVersion(): Promise<string> {
  const { brvVersion } = await import('../base/package-root.js');
  return brvVersion();
}
