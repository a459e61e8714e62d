import test from 'ava';
import type { CommandModule } from 'yargs';
import { commands } from '../../src/cli/commands/index.js';
import { fastParse } from '../../src/cli/fast-args.js';
import { createParser } from '../../src/cli/parser.js';
import { parsedArgv } from '../helpers/parsed-argv.js';
import { seededRandom } from '../helpers/random.js';

/** What yargs hands the command's handler for `args` (undefined: a usage error, help or version). */
async function yargsArgv(args: string[]): Promise<Record<string, unknown> | undefined> {
  let seen: Record<string, unknown> | undefined;
  const recording = commands.map((c) => ({ ...c, handler: (argv: Record<string, unknown>) => void (seen = argv) })) as CommandModule[];
  let failed = false;
  const parser = createParser(args, 'brv', recording, () => (failed = true)).exitProcess(false);
  try {
    await parser.parseAsync();
  } catch {
    failed = true;
  }
  return failed ? undefined : seen;
}

// The command lines agents send: all of them must take the fast path.
const AGENT_LINES = [
  ['query', 'how are JWTs signed', '--format', 'json'],
  ['query', 'how', 'are', 'tokens', 'signed'],
  ['query', 'deploy canary', '--limit', '5', '--scope', 'ops/', '--format=json'],
  ['query', 'x', '--since', '2026-01-01', '--until', '2026-02-01', '--at', 'main~2', '-C', '/tmp'],
  ['query', 'how are JWTs signed', '--answer', '--format', 'json'],
  ['search', 'problem json', '--format', 'json', '--limit=3'],
  ['curate', 'JWTs are signed with RS256', '--format', 'json'],
  ['curate', '--session', 'abc', '--response', '{"html":"<bv-topic></bv-topic>"}', '--format', 'json'],
  ['curate', '--session', 'abc', '--response-file', 'reply.json', '--delete-response-file', '--overwrite', '--format', 'json'],
  ['curate', '--html-file', 'topic.html', '--meta', '{"impact":"low"}'],
  ['hook-prompt-submit'],
  ['hook-prompt-submit', '--format', 'json'],
  // `--` ends options: what follows is the question (or intent), whatever it looks like.
  ['query', '--', '-Werror flag'],
  ['query', 'x', '--', '--scope'],
  ['query', '--format', 'json', '--limit', '3', '--', '-x', 'help', '-'],
  ['curate', '--format', 'json', '--', 'view'],
  ['curate', '--', '--session'],
  // One word is an intent, however close to the sub-command's name (only `view` itself is one).
  ['curate', 'caching'],
  ['curate', 'review', '--format', 'json'],
  ['curate', 'vie'],
  ['curate', 'views'],
  ['curate', 'how'],
  // The same value twice is given once.
  ['query', 'x', '--format', 'json', '--format', 'json'],
  ['search', 'x', '--format=json', '--format', 'json', '--limit', '3', '--limit=3'],
  ['curate', 'x', '--overwrite', '--overwrite'],
];

test('the fast path takes the agent command lines and reads them exactly as yargs does', async (t) => {
  for (const args of AGENT_LINES) {
    const fast = fastParse(args, 'brv');
    t.truthy(fast, args.join(' '));
    t.deepEqual(fast?.argv, await yargsArgv(args), args.join(' '));
  }
});

test('anything the fast path cannot read exactly as yargs does goes to yargs', (t) => {
  for (const args of [
    ['query'],
    ['query', '--help'],
    ['query', 'x', '-h'],
    ['query', 'help'],
    ['query', 'x', '--version'],
    ['query', 'x', '--bogus'],
    ['query', 'x', '--format', 'yaml'],
    ['query', 'x', '--limit', 'abc'],
    ['query', 'x', '--limit', '0x10'],
    ['query', 'x', '--kind', 'rule'],
    ['query', 'x', '--scope', 'a', '--scope', 'b'],
    ['query', '-'],
    ['query', 'x', '-C/tmp'],
    ['query', 'x', '--no-limit'],
    ['curate', 'view'],
    ['curate', 'a', 'b'],
    ['query', 'x', '--format', 'json', '--format', 'text'],
    ['search', 'x', '--limit', '3', '--limit', '4'],
    ['curate', '--overwrite', 'false'],
    ['curate', '--folder', 'x'],
    ['curate', '-d', 'x'],
    ['curate', '--responseFile', 'x'],
    ['status'],
    ['hook-prompt-submit', 'extra'],
    ['--format', 'json', 'query', 'x'],
  ])
    t.is(fastParse(args, 'brv'), undefined, args.join(' '));
});

test('through yargs too, one word after curate is its intent; only `view` runs the sub-command', async (t) => {
  // -C sends these lines to yargs.
  for (const word of ['caching', 'review', 'vie', 'views', 'preview', 'View', 'x'])
    t.like(await yargsArgv(['curate', word, '-C', '.']), { _: ['curate'], intent: word }, word);
  const view = await parsedArgv(['curate', 'view', '-C', '.']);
  t.like(view, { _: ['curate', 'view'] });
  t.is(view?.intent, undefined);
  // A misspelt command is still recommended at the top level.
  const messages: string[] = [];
  try {
    await createParser(['curat', 'x'], 'brv', commands, (_, __, message) => void messages.push(message))
      .exitProcess(false)
      .parseAsync();
  } catch {
    // the usage failure, reported above
  }
  t.deepEqual(messages, ['Did you mean curate?']);
});

test('an option given twice: the same value once, different values a usage error; array and repeatable options keep every value', async (t) => {
  t.like(await yargsArgv(['status', '--format', 'json', '--format', 'json']), { format: 'json' });
  t.like(await parsedArgv(['vc', 'log', '-n', '5', '--limit', '5']), { limit: 5, n: 5 });
  t.like(await yargsArgv(['curate', '--html-file', 'a', '--html-file', 'a']), { 'html-file': 'a', htmlFile: 'a' });
  for (const args of [
    ['status', '--format', 'json', '--format', 'text'],
    ['vc', 'log', '-n', '5', '--limit', '6'],
    ['curate', '--html-file', 'a', '--html-file', 'b'],
    ['read', 'x', '-C', 'a', '-C', 'b'],
  ])
    t.is(await parsedArgv(args), undefined, args.join(' '));
  // Arrays keep their values, repeated or not.
  t.like(await yargsArgv(['query', 'x', '--kind', 'rule', '--kind', 'rule']), { kind: ['rule', 'rule'] });
  t.like(await yargsArgv(['query', 'x', '--kind', 'rule', 'fact']), { kind: ['rule', 'fact'] });
  t.like(await parsedArgv(['vc', 'diff', '--path', 'a', '--path', 'b']), { path: ['a', 'b'] });
  t.like(await parsedArgv(['review', 'reject', 'abc', '--file', 'a', '--file', 'a']), { file: ['a', 'a'] });
  t.like(await parsedArgv(['hooks', 'run', 'post-merge', 'a', 'a']), { args: ['a', 'a'] });
  // curate -f is repeatable, one value each: the intent after it stays the intent.
  t.like(await yargsArgv(['curate', '-f', 'a.md', 'the intent', '-f', 'b.md', '--file', 'a.md']), {
    intent: 'the intent',
    file: ['a.md', 'b.md', 'a.md'],
  });
  t.like(await yargsArgv(['curate', 'the intent', '-f', 'a.md']), { intent: 'the intent', file: ['a.md'] });
});

/** Deterministic pseudo-random command lines from the tokens that trip parsers up. */
function* commandLines(count: number): Generator<string[]> {
  const words = [
    'how',
    'tokens',
    '007',
    '1e3',
    '0x10',
    '-1',
    '5.5',
    '',
    '  ',
    'a b',
    'true',
    'false',
    'TRUE',
    'help',
    'view',
    '-',
    '--',
    '-x',
  ];
  const flags = [
    '--format',
    'json',
    'text',
    'yaml',
    '--format=json',
    '--format=',
    '--limit',
    '5',
    '0',
    '--limit=7',
    '--limit=',
    '99999999999',
    '--scope',
    'security/',
    '--scope=',
    '--scope=-x',
    '--at',
    'main~2',
    '--since',
    '2026-01-01',
    '--until',
    '--kind',
    'rule',
    '-C',
    '.',
    '--C',
    '-C.',
    '--bogus',
    '--no-limit',
    '--session',
    'abc',
    '--response',
    '{"html":"x"}',
    '--response=--x',
    '--response-file',
    'r.json',
    '--delete-response-file',
    '--overwrite',
    '--html-file',
    '--meta',
    '--intent',
    '--folder',
    '-d',
    '--version',
    '-h',
    '--answer',
    '--answer=true',
    '--no-answer',
  ];
  const random = seededRandom(7);
  const next = (n: number) => Math.floor(random() * n);
  for (let i = 0; i < count; i++) {
    const line = [['query', 'search', 'curate', 'hook-prompt-submit'][next(4)]!];
    for (let k = next(7); k > 0; k--) line.push(next(2) ? words[next(words.length)]! : flags[next(flags.length)]!);
    yield line;
  }
}

test('on generated command lines, every one the fast path takes gets the argv yargs would give', async (t) => {
  let taken = 0;
  for (const args of commandLines(3000)) {
    const fast = fastParse(args, 'brv');
    if (!fast) continue;
    taken++;
    t.deepEqual(fast.argv, await yargsArgv(args), JSON.stringify(args));
  }
  t.true(taken > 200, `only ${taken} lines took the fast path`);
});
