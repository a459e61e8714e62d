import test from 'ava';
import { readFileSync } from 'node:fs';
import { terminalPrompts } from '../../src/git/env.js';
import { GitProcesses } from '../../src/git/processes.js';
import { runGit } from '../../src/git/run.js';
import { ENV, tempDir } from '../helpers/repo.js';

/** The session id of a process, from /proc/<pid>/stat ("<pid> (<comm>) <state> <ppid> <pgrp> <session> …"). */
function sessionOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[3]);
}

test('terminalPrompts reads GIT_TERMINAL_PROMPT as git does; brv turns prompts off unless the user allows them', (t) => {
  for (const value of ['1', 'true', 'yes', 'on', 'TRUE', '2']) t.true(terminalPrompts({ GIT_TERMINAL_PROMPT: value }), value);
  for (const value of ['0', 'false', 'no', 'off', '']) t.false(terminalPrompts({ GIT_TERMINAL_PROMPT: value }), value);
  t.false(new GitProcesses({ PATH: ENV.PATH }).terminalPrompts);
  t.true(new GitProcesses({ PATH: ENV.PATH, GIT_TERMINAL_PROMPT: '1' }).terminalPrompts);
});

test('git children run in a session of their own (no controlling terminal to prompt on), unless prompts are allowed', async (t) => {
  if (process.platform !== 'linux') return t.pass('reads /proc');
  const cwd = await tempDir();
  const ours = sessionOf(readFileSync('/proc/self/stat', 'utf8'));
  // A git alias that runs a shell printing its own /proc stat line: the shell is in git's session.
  const args = ['-c', 'alias.where=!cat /proc/$$/stat', 'where'];
  const { PATH, HOME, GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL } = ENV;
  const base = { PATH, HOME, GIT_CONFIG_NOSYSTEM, GIT_CONFIG_GLOBAL };
  const quiet = await runGit(new GitProcesses(base), args, { cwd });
  t.not(sessionOf(quiet.stdout), ours);
  const asking = await runGit(new GitProcesses({ ...base, GIT_TERMINAL_PROMPT: '1' }), args, { cwd });
  t.is(sessionOf(asking.stdout), ours);
});
