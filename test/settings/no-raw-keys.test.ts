import test from 'ava';
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { GitRepository } from '../../src/git/repository.js';
import { readSettings } from '../../src/settings/settings.js';
import { ROOT, cleanup, git, makeRepo } from '../helpers/repo.js';
import { testProcesses } from '../helpers/processes.js';

// Every read of a brv.* git config key goes through the settings registry (src/settings), so defaults,
// accepted spellings and precedence are decided in one place. A quoted `brv.<section>.` anywhere else
// in src/ is a bypass.
const RAW_KEY = /['"`]\^?brv(?:\\\\)?\.[A-Za-z][\w-]*(?:\\\\)?\./;

async function sources(dir: string): Promise<string[]> {
  const files: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) files.push(...(await sources(full)));
    else if (entry.name.endsWith('.ts')) files.push(full);
  }
  return files;
}

test('no brv.* config key is named outside src/settings', async (t) => {
  const src = path.join(ROOT, 'src');
  const offenders: string[] = [];
  for (const file of await sources(src)) {
    if (path.relative(src, file).startsWith(`settings${path.sep}`)) continue;
    (await readFile(file, 'utf8')).split('\n').forEach((line, i) => {
      if (RAW_KEY.test(line)) offenders.push(`${path.relative(ROOT, file)}:${i + 1}: ${line.trim()}`);
    });
  }
  t.deepEqual(offenders, []);
});

test('the pattern catches the ways a key is written', (t) => {
  for (const line of [
    `configGet('brv.hooks.preCommit')`,
    `configList('^brv\\\\.review\\\\.')`,
    'value("brv.review.gate")',
    '`brv.review.enabled`',
  ])
    t.true(RAW_KEY.test(line), line);
  for (const line of [`load('brv.js')`, 'named `brv.md`']) t.false(RAW_KEY.test(line), line);
});

test('readSettings: defaults, git spellings and key matching, the last value wins, unknown values behave as the default', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const read = async () => {
    const g = await GitRepository.open(repo, testProcesses());
    try {
      return await readSettings(g);
    } finally {
      g.close();
    }
  };
  const llm = {
    'llm.timeout': 60,
    'llm.retries': 2,
    'retrieval.hybrid': false,
    'sync.holdRemovals': true,
    'sync.removalLimit': 10,
    'sync.removalShare': 20,
    'sync.requireSigned': false,
  };
  t.deepEqual(await read(), { 'review.enabled': true, 'review.gate': false, 'hooks.preCommit': 'warn', ...llm });

  await git(repo, 'config', 'brv.review.enabled', 'off');
  await git(repo, 'config', 'brv.review.GATE', 'Yes');
  // A subsection is case-sensitive in git: this is another key, which brv does not read.
  await git(repo, 'config', 'brv.Hooks.preCommit', 'block');
  t.deepEqual(await read(), { 'review.enabled': false, 'review.gate': true, 'hooks.preCommit': 'warn', ...llm });
  await git(repo, 'config', 'brv.hooks.preCommit', 'block');
  t.deepEqual(await read(), { 'review.enabled': false, 'review.gate': true, 'hooks.preCommit': 'block', ...llm });

  await git(repo, 'config', '--add', 'brv.review.gate', '0');
  await git(repo, 'config', 'brv.hooks.preCommit', 'BLOCK');
  await git(repo, 'config', 'brv.review.enabled', 'maybe');
  await git(repo, 'config', 'brv.llm.timeout', '0');
  await git(repo, 'config', 'brv.llm.retries', '3');
  t.deepEqual(await read(), {
    'review.enabled': true,
    'review.gate': false,
    'hooks.preCommit': 'warn',
    'llm.timeout': 60,
    'llm.retries': 3,
    'retrieval.hybrid': false,
    'sync.holdRemovals': true,
    'sync.removalLimit': 10,
    'sync.removalShare': 20,
    'sync.requireSigned': false,
  });
});
