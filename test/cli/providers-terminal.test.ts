import test from 'ava';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { tempDir } from '../helpers/repo.js';
import { openTerminal, tmuxAvailable } from '../helpers/terminal.js';

const run = tmuxAvailable() ? test : test.skip;
const SECRET = 'sk-typed-at-the-prompt-4242';

run('on a terminal, connect asks for a missing key without echoing it, and stores it', async (t) => {
  const home = await tempDir('brv-user-');
  const term = await openTerminal(home, {
    args: ['providers', 'connect', 'openai'],
    env: { XDG_CONFIG_HOME: path.join(home, '.config') },
  });
  t.teardown(() => term.close());
  await term.see(/API key for OpenAI \(not shown; Enter to skip and use OPENAI_API_KEY\):/);
  await term.send([SECRET], { literal: true });
  await term.send(['BSpace']);
  await term.send(['2', 'Enter'], { literal: false });
  const screen = await term.see(/\[exit 0\]/);
  t.regex(screen, /Key stored in .*credentials\.json/);
  t.false(screen.includes('sk-typed'), 'the key is never shown');
  t.true((await readFile(path.join(home, '.config', 'brv', 'credentials.json'), 'utf8')).includes(SECRET));
});

run('Enter skips the prompt: connected, with a warning naming the variable', async (t) => {
  const home = await tempDir('brv-user-');
  const term = await openTerminal(home, { args: ['providers', 'connect', 'groq'], env: { XDG_CONFIG_HOME: path.join(home, '.config') } });
  t.teardown(() => term.close());
  await term.see(/API key for Groq/);
  await term.send(['Enter']);
  const screen = await term.see(/\[exit 0\]/);
  t.regex(screen, /Connected groq/);
  t.regex(screen, /No API key found for groq: set GROQ_API_KEY/);
});
