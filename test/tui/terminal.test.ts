import test from 'ava';
import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { threeTopics } from '../helpers/knowledge.js';
import { brv, cleanup, makeRepo, ROOT, showTopic, tempDir } from '../helpers/repo.js';
import { openTerminal, tmuxAvailable } from '../helpers/terminal.js';

// `brv` as a person runs it: a real pseudo-terminal (tmux), the built CLI, a real repository; every
// assertion is on the screen as tmux captured it.
const terminalTest = tmuxAvailable() ? test.serial : test.skip;

terminalTest('brv in a terminal: ask, open a result, review and reject, see an agent’s curate live, resize, leave', async (t) => {
  const repo = await threeTopics({ deployReviewed: true });
  const term = await openTerminal(repo);
  t.teardown(async () => {
    await term.close();
    await cleanup(repo);
  });
  await term.see(/3 topics · 1 review pending/);

  // A question: ranked results; the first opened, rendered as terminal markdown.
  await term.send(['which cookies hold session tokens'], { literal: true });
  await term.send(['Enter']);
  const results = await term.see(/Search: which cookies hold session tokens/);
  t.regex(results, /› 1\. Session cookies/);
  await term.send(['Enter']);
  const topic = await term.see(/Session cookies\n═+/);
  t.regex(topic, /• Rule \[must\]: Session tokens live in HttpOnly cookies\./);
  await term.send(['Escape']);
  await term.see(/Search: which cookies hold session tokens/);
  await term.send(['Escape']);
  await term.see(/Ask a question and press Enter/);

  // The review an agent's high-impact curate opened: its diff, rejected; the topic is gone again.
  await term.send(['/rev'], { literal: true });
  await term.send(['Tab']);
  await term.see(/› \/review/);
  await term.send(['Enter']);
  const review = await term.see(/ADD ops\/deploy/);
  t.regex(review, /Why: new deploy rule/);
  t.regex(review, /\+- \*\*Rule\*\* \[must\]: Deploy with blue-green switches\./);
  await term.send(['r'], { literal: true });
  await term.see(/Nothing to review: every change is decided\./);
  await term.see(/2 topics · no reviews/);
  t.is(await showTopic(repo, 'ops/deploy.html'), undefined);
  await term.send(['Escape']);

  // An agent curates in another process: a note and the status line, without a key pressed.
  const agent = await brv(repo, ['curate', '--html-file', '-'], {
    input: '<bv-topic path="ops/oncall" title="On call"><bv-rule severity="must">Page the on-call engineer.</bv-rule></bv-topic>',
    env: { BRV_AGENT: 'claude-code' },
  });
  t.is(agent.exitCode, 0, agent.stderr);
  await term.see(/● claude-code: curate: ops\/oncall/);
  await term.see(/3 topics · no reviews/);

  // Resize: everything is laid out again for 60 columns.
  await term.send(['/help'], { literal: true });
  await term.send(['Enter']);
  await term.see(/Commands/);
  await term.resize(60, 24);
  const narrow = await term.see(/┌/);
  for (const line of narrow.split('\n')) t.true(line.length <= 60, `"${line}" is wider than 60 columns`);
  t.regex(narrow, /│ Command/);
  await term.send(['Escape']);
  await term.gone(/│ Command/);

  // Ctrl-C once warns, twice leaves: the shell gets its screen back and brv exits 0.
  await term.send(['C-c']);
  await term.see(/Press Ctrl-C again to leave\./);
  await term.send(['C-c']);
  await term.see(/\[exit 0\]/);
});

terminalTest('NO_COLOR: the same screen, without colour codes (and with them otherwise)', async (t) => {
  const repo = await threeTopics({ deployReviewed: true });
  const plain = await openTerminal(repo, { env: { NO_COLOR: '1' } });
  const coloured = await openTerminal(repo, { args: ['tui'] });
  t.teardown(async () => {
    await plain.close();
    await coloured.close();
    await cleanup(repo);
  });
  for (const term of [plain, coloured]) {
    await term.see(/3 topics/);
    await term.send(['/read security/auth'], { literal: true });
    await term.send(['Enter']);
    await term.see(/RS256/);
  }
  // SGR colour parameters (foreground 30–37, 90–97, extended 38;…), as tmux reports them.
  const colour = /\u001b\[(?:[0-9;]*;)?(?:3[0-8]|9[0-7])[;m]/;
  t.regex(await coloured.screen({ escapes: true }), colour, 'colours are there without NO_COLOR (the check can fail)');
  t.notRegex(await plain.screen({ escapes: true }), colour);
});

test('brv with no arguments off a terminal prints the help and exits 0; brv tui refuses without a terminal', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const help = await brv(repo, []);
  t.is(help.exitCode, 0, help.stderr);
  t.regex(help.stdout, /brv <command> \[options\]/);
  t.regex(help.stdout, /brv tui/);
  const tui = await brv(repo, ['tui']);
  t.is(tui.exitCode, 2, tui.stdout);
  t.regex(tui.stderr, /brv tui needs a terminal on stdin and stdout/);
});

terminalTest('/edit hands the terminal to the editor (keys go to it, not to the REPL), saves, and the REPL comes back', async (t) => {
  const repo = await threeTopics();
  const tools = await tempDir('brv-editor-');
  // An interactive editor: asks on the terminal for the word that replaces "blue-green".
  const editor = path.join(tools, 'editor.cjs');
  await writeFile(
    editor,
    `const fs = require('node:fs');
const file = process.argv[2];
const rl = require('node:readline').createInterface({ input: process.stdin, output: process.stdout });
rl.question('replacement? ', (word) => {
  fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace('blue-green', word));
  rl.close();
});
`,
  );
  const term = await openTerminal(repo, { env: { VISUAL: `node ${editor}` } });
  t.teardown(async () => {
    await term.close();
    await cleanup(repo, tools);
  });
  await term.see(/3 topics/);
  await term.send(['/edit ops/dep'], { literal: true });
  await term.send(['Tab']);
  await term.see(/› \/edit ops\/deploy/);
  await term.send(['Enter']);
  await term.see(/replacement\?/);
  await term.send(['canary'], { literal: true });
  await term.send(['Enter']);
  const saved = await term.see(/Deploy with canary switches\./);
  t.regex(saved, /ops\/deploy · [0-9a-f]{8}/);
  t.regex((await showTopic(repo, 'ops/deploy.html')) ?? '', /Deploy with canary switches\./);
  // The REPL reads keys again (once it has them: keys sent while ink turns raw mode back on would wait
  // in the terminal and arrive in one read, ESC with the next key as Alt held).
  await term.send(['Escape']);
  await term.gone(/Esc back/);
  await term.send(['/ls ops'], { literal: true });
  await term.send(['Enter']);
  await term.see(/Topics under ops\//);
});

test('the REPL is loaded by brv tui only: the agent commands load no chunk holding ink, React or yoga', async (t) => {
  const repo = await threeTopics();
  t.teardown(() => cleanup(repo));
  const loaded = async (args: string[]) => {
    const run = await brv(repo, args, { env: { BRV_TRACE: '1' } });
    t.is(run.exitCode, 0, run.stderr);
    return [...run.stderr.matchAll(/cli: chunk (\S+)/g)].map((m) => m[1]!);
  };
  const app = path.join(ROOT, 'dist', 'app');
  const holdsTui = async (chunk: string) =>
    /yoga-layout|ink-root|react\.transitional\.element/.test(await readFile(path.join(app, chunk), 'utf8'));
  // The check can fail: some chunk of the build does hold them.
  const all = (await readdir(app)).filter((file) => file.endsWith('.js'));
  t.true((await Promise.all(all.map(holdsTui))).some(Boolean), 'no chunk holds the REPL: the marker is wrong');
  for (const args of [['query', 'session tokens'], ['search', 'deploy'], ['ls'], ['status']]) {
    const chunks = await loaded(args);
    t.true(chunks.length > 0, args.join(' '));
    for (const chunk of chunks) t.false(await holdsTui(chunk), `${args.join(' ')} loads ${chunk}`);
  }
});
