import test from 'ava';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TEMPLATE_NAMES, readTemplate } from '../../src/setup/templates.js';
import { ROOT, brv, brvJson, makeRepo, tempDir } from '../helpers/repo.js';

// The templates are what agents read about brv: every command and flag they name must exist in the
// CLI. Commands and flags are read from its real `--help` output (run in-process), so a renamed command or option
// fails here, not in an agent's session.

const TEMPLATES = path.join(ROOT, 'templates');

async function templateFiles(dir = TEMPLATES): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await templateFiles(full)));
    else if (entry.name.endsWith('.md') || entry.name.endsWith('.toml')) files.push(full);
  }
  return files.sort();
}

// ---- what the templates mention --------------------------------------------------------------------

interface Mention {
  where: string;
  /** The words after `brv` (or `git brv`) that name a command: one, or a command and its subcommand. */
  command: string;
  sub: string | undefined;
  flags: string[];
}

const WORD = /^[a-z][a-z-]*$/;
const FLAG = /^[[(]*(--?[a-zA-Z][a-zA-Z0-9-]*)/;

/** Code in a markdown text: every line of a fenced block (comments dropped) and every inline code span. */
function codeSegments(markdown: string): Array<{ text: string; line: number }> {
  const segments: Array<{ text: string; line: number }> = [];
  let fenced = false;
  markdown.split('\n').forEach((text, index) => {
    const line = index + 1;
    if (/^\s*```/.test(text)) {
      fenced = !fenced;
      return;
    }
    if (fenced) segments.push({ text: text.replace(/(^|\s)#.*$/, ''), line });
    else for (const match of text.matchAll(/`([^`]+)`/g)) segments.push({ text: match[1]!, line });
  });
  return segments;
}

/** The brv commands in a piece of code, each with the flags that follow it (up to the next command). */
function findMentions(markdown: string, file: string): Mention[] {
  const mentions: Mention[] = [];
  for (const segment of codeSegments(markdown)) {
    // Quoted arguments (intents, JSON) are data, not flags; pipes and `;` start another command.
    const unquoted = segment.text.replace(/'[^']*'|"(?:[^"\\]|\\.)*"/g, '""');
    for (const piece of unquoted.split(/\|\||&&|[|;]|\$\(/)) {
      const tokens = piece.trim().split(/\s+/);
      let current: Mention | undefined;
      tokens.forEach((token, i) => {
        if (token === 'brv') {
          const command = tokens[i + 1];
          if (command === undefined || !WORD.test(command)) {
            current = undefined; // a placeholder such as `brv <command>`
            return;
          }
          const sub = tokens[i + 2] !== undefined && WORD.test(tokens[i + 2]!) ? tokens[i + 2] : undefined;
          current = { where: `${path.relative(ROOT, file)}:${segment.line}`, command, sub, flags: [] };
          mentions.push(current);
          return;
        }
        const flag = FLAG.exec(token)?.[1];
        if (current && flag) current.flags.push(flag);
      });
    }
  }
  return mentions;
}

// ---- what the CLI has ------------------------------------------------------------------------------

const helpCache = new Map<string, Promise<{ exitCode: number; stdout: string }>>();

function help(words: string[]): Promise<{ exitCode: number; stdout: string }> {
  const key = words.join(' ');
  let cached = helpCache.get(key);
  if (!cached) {
    cached = brv(ROOT, [...words, '--help'], { env: { COLUMNS: '200' } }).then((r) => ({ exitCode: r.exitCode, stdout: r.stdout }));
    helpCache.set(key, cached);
  }
  return cached;
}

/** Names listed under "Commands:" in a help text, one level below `prefix` (`brv`, `brv vc`). */
function listedCommands(helpText: string, prefix: string): Set<string> {
  const names = new Set<string>();
  const section = helpText.split(/^Commands:$/m)[1]?.split(/^\S.*:$/m)[0] ?? '';
  for (const match of section.matchAll(new RegExp(`^\\s+${prefix} ([a-z][a-z-]*)`, 'gm'))) names.add(match[1]!);
  return names;
}

/** Option names in a help text's "Options:" section (`--limit`, `-n`, …). */
function listedOptions(helpText: string): Set<string> {
  const options = new Set<string>();
  const section = helpText.split(/^Options:$/m)[1]?.split(/^\S.*:$/m)[0] ?? '';
  for (const line of section.split('\n')) {
    const column = /^\s+((?:--?[a-zA-Z][\w-]*(?:, )?)+)/.exec(line)?.[1];
    for (const name of column?.split(', ') ?? []) options.add(name.trim());
  }
  return options;
}

/** Does `brv <words…>` exist? Listed in its parent's help, or (hidden commands) has help of its own. */
async function commandExists(words: string[]): Promise<boolean> {
  const parent = await help(words.slice(0, -1));
  if (listedCommands(parent.stdout, ['brv', ...words.slice(0, -1)].join(' ')).has(words.at(-1)!)) return true;
  const own = await help(words);
  return own.exitCode === 0 && own.stdout.startsWith(`brv ${words.join(' ')}`);
}

/** Every problem with the mentions: unknown commands, subcommands and flags. */
async function checkMentions(mentions: Mention[]): Promise<string[]> {
  const problems: string[] = [];
  await Promise.all(
    mentions.map(async (mention) => {
      if (!(await commandExists([mention.command]))) {
        problems.push(`${mention.where}: brv ${mention.command}: no such command`);
        return;
      }
      const words = [mention.command];
      const subcommands = listedCommands((await help(words)).stdout, `brv ${mention.command}`);
      if (mention.sub !== undefined && subcommands.size > 0) {
        if (!subcommands.has(mention.sub)) {
          problems.push(`${mention.where}: brv ${mention.command} ${mention.sub}: no such subcommand`);
          return;
        }
        words.push(mention.sub);
      }
      const own = await help(words);
      if (own.exitCode !== 0) {
        problems.push(`${mention.where}: brv ${words.join(' ')} --help failed (exit ${own.exitCode})`);
        return;
      }
      const options = listedOptions(own.stdout);
      for (const flag of mention.flags)
        if (!options.has(flag)) problems.push(`${mention.where}: brv ${words.join(' ')} has no option ${flag}`);
    }),
  );
  return problems.sort();
}

function frontmatter(markdown: string): Record<string, string> | undefined {
  const match = /^---\n([\s\S]*?)\n---\n/.exec(markdown);
  if (!match) return undefined;
  const fields: Record<string, string> = {};
  for (const line of match[1]!.split('\n')) {
    const field = /^([a-z-]+):\s*(.*)$/.exec(line);
    if (field) fields[field[1]!] = field[2]!.replace(/^(["'])(.*)\1$/, '$2');
  }
  return fields;
}

// ---- tests -----------------------------------------------------------------------------------------

test('every template brv ships exists, is filled in, and reads through the loader', async (t) => {
  for (const name of TEMPLATE_NAMES) {
    const text = await readTemplate(name);
    t.true(text.trim().length > 200, `${name} is too short to be the real text`);
    t.false(/PLACEHOLDER/.test(text), `${name} is still a placeholder`);
  }
  const prompt = await readTemplate('prompt-hook.md');
  t.true(prompt.length <= 1500, `prompt-hook.md is printed into every prompt: keep it short (${prompt.length} chars)`);
});

test('every brv command, subcommand and flag a template names exists in the built CLI', async (t) => {
  const files = await templateFiles();
  t.true(files.length >= TEMPLATE_NAMES.length);
  // A TOML template (the Codex sub-agent) is instructions without markdown code spans: every line counts as code.
  const asMarkdown = (text: string, file: string) => (file.endsWith('.toml') ? `\`\`\`\n${text}\n\`\`\`` : text);
  const mentions = (
    await Promise.all(files.map(async (file) => findMentions(asMarkdown(await readFile(file, 'utf8'), file), file)))
  ).flat();
  t.true(
    mentions.some((m) => m.where.startsWith('templates/agent/brv-curate.toml') && m.flags.includes('--delete-response-file')),
    'the Codex sub-agent is checked too',
  );
  // The checker really sees the texts: the curate protocol and the sharing commands are in them.
  const seen = new Set(mentions.map((m) => [m.command, m.sub].filter(Boolean).join(' ')));
  for (const command of ['query', 'curate', 'review pending', 'review approve', 'sync', 'vc log', 'settings set'])
    t.true(seen.has(command), `no template mentions brv ${command}`);
  t.true(mentions.some((m) => m.command === 'curate' && m.flags.includes('--response-file') && m.flags.includes('--delete-response-file')));
  t.true(mentions.length > 60, `only ${mentions.length} mentions found`);
  t.deepEqual(await checkMentions(mentions), []);
});

test('the checker catches unknown commands, subcommands and flags, and `git brv` mentions', async (t) => {
  const markdown = [
    'Run `brv quarry "x"` or `git brv vc lg`, then `brv query "q" --limitt 3 --format json`.',
    '```sh',
    'brv review pending --format json   # --not-checked in a comment',
    'git brv settings set review.gate true --globl',
    'brv curate "text with --dashes and -x inside quotes" --format json',
    '```',
    'Placeholders are fine: `brv <command> -h`, `git brv <command>`.',
  ].join('\n');
  const problems = await checkMentions(findMentions(markdown, path.join(ROOT, 'example.md')));
  t.deepEqual(problems, [
    'example.md:1: brv quarry: no such command',
    'example.md:1: brv query has no option --limitt',
    'example.md:1: brv vc lg: no such subcommand',
    'example.md:4: brv settings set has no option --globl',
  ]);
});

test('SKILL.md frontmatter: name and description within the skill limits; its links resolve', async (t) => {
  const skill = await readTemplate('skill/SKILL.md');
  const fields = frontmatter(skill);
  if (!fields) return t.fail('SKILL.md has no frontmatter');
  t.regex(fields.name!, /^[a-z0-9-]+$/);
  t.true(fields.name!.length <= 64);
  t.is(fields.name, 'brv');
  t.true(fields.description!.length > 50 && fields.description!.length <= 1024, `description: ${fields.description!.length} chars`);
  t.false(/[<>]/.test(fields.description!), 'no angle brackets in the description (some loaders reject them)');
  // The commands the description names, in parentheses, exist too.
  const named = [...fields.description!.matchAll(/\(brv ([a-z]+)/g)].map((m) => m[1]!);
  t.true(named.length >= 3);
  for (const command of named) t.true(await commandExists([command]), `description names brv ${command}`);
  // Links to the bundle's other files resolve, and every other file of the bundle is linked.
  const links = [...skill.matchAll(/\]\(([^)#]+\.md)\)/g)].map((m) => m[1]!);
  const others = (await readdir(path.join(TEMPLATES, 'skill'))).filter((f) => f.endsWith('.md') && f !== 'SKILL.md');
  t.deepEqual([...new Set(links)].sort(), others.sort());
  for (const link of links) t.true((await readTemplate(`skill/${link}`)).length > 0);
});

test('the example reply in skill/curate.md is accepted by a real curate session', async (t) => {
  const curate = await readTemplate('skill/curate.md');
  const example = /```json\n(.*)\n```/.exec(curate)?.[1];
  if (!example) return t.fail('skill/curate.md has no ```json example reply');
  const repo = await makeRepo();
  const start = await brvJson(repo, ['curate', 'refresh token rotation']);
  const file = path.join(await tempDir(), 'reply.json');
  await writeFile(file, example);
  const done = await brvJson(repo, ['curate', '--session', start.json!.data.sessionId, '--response-file', file, '--delete-response-file']);
  t.is(done.json?.data.status, 'done', done.stdout);
  t.is(done.json?.data.filePath, 'auth/refresh_tokens.html');
});

test('the MCP workflow names the five MCP tools and their inputs', async (t) => {
  const workflow = await readTemplate('mcp-workflow.md');
  for (const tool of ['brv-query', 'brv-curate', 'brv-search', 'brv-read', 'brv-list']) t.true(workflow.includes(`\`${tool}\``), tool);
  for (const input of ['query', 'limit?', 'cwd?', 'html', 'meta?', 'confirmOverwrite?', 'path', 'prefix?', 'scope?'])
    t.true(workflow.includes(`\`${input}\``), input);
});
