import test from 'ava';
import { execa } from 'execa';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CLI, ENV, brv, cleanup, makeRepo, tempDir } from '../helpers/repo.js';

// Odd command lines across many commands, through the real CLI: a usage error is exit 2 with the
// JSON envelope under --format json and one readable line in text; never a stack trace.

const USAGE = 2;
const ANY = -1; // exit 0 or 1: the command ran and answered (or failed with a typed error)

const LONG = 'q'.repeat(100_000);
const BINARYISH = 'é\u0001\u007f\u00ff\ufffd\u200b\u202e☃𝄞\t\r';

const CASES: Array<[string[], number]> = [
  // Option-like values for options that need one.
  [['source', 'add', './x', '--alias', '-x'], USAGE],
  [['source', 'add', './x', '--alias'], USAGE],
  [['vc', 'remote', 'add', '-x', 'url'], USAGE],
  // After `--` every word is a positional: the command runs (and refuses a bad remote name itself).
  [['vc', 'remote', 'add', '--', '-x', 'url'], ANY],
  [['query', '--', '-x'], ANY],
  [['curate', '--response-file', '-x'], USAGE],
  // An empty session id: the curate protocol's own failure (exit 0 with its envelope, by contract).
  [['curate', '--session', '--response', 'x'], ANY],
  [['worktree', 'add', 'w', '-b', '-x'], USAGE],
  [['worktree', 'add', 'w', '--brv-branch'], USAGE],
  [['init', '--branch'], USAGE],
  [['status', '-C'], USAGE],
  [['ls', '-C', '--format'], USAGE],
  // Unknown options and commands, missing values and positionals.
  [['status', '--bogus'], USAGE],
  [['read'], USAGE],
  [['frobnicate'], USAGE],
  [['vc', 'frobnicate'], USAGE],
  [['review', 'approve'], USAGE],
  [['settings', 'set'], USAGE],
  [['connectors', 'install'], USAGE],
  [['search', '--limit', 'x', '--scope'], USAGE],
  [['search', 'x', '--limit', 'abc'], USAGE],
  [['vc', 'log', '--limit=Infinity'], USAGE],
  // Every number option is checked against its range, every enum-like option against its values.
  [['query', 'x', '--limit', '500'], USAGE],
  [['query', 'x', '--limit', '0'], USAGE],
  [['query', 'x', '--limit', '2.5'], USAGE],
  [['search', 'x', '--limit', '51'], USAGE],
  [['query', 'x', '--kind', 'foo'], USAGE],
  [['search', 'x', '--kind', 'rule', 'nonsense'], USAGE],
  [['curate', 'view', '--limit', '5000'], USAGE],
  [['curate', 'view', '--limit', 'abc'], USAGE],
  [['vc', 'log', '-n', '0'], USAGE],
  [['vc', 'log', '--limit', '10001'], USAGE],
  [['connectors', 'install', 'claude-code', '--type', 'bogus'], USAGE],
  [['hooks', 'run', 'bogus'], USAGE],
  // ByteRover's commands get a hint, not a misspelling guess.
  [['pull'], USAGE],
  [['hub'], USAGE],
  [['dream', '--max', '0'], USAGE],
  [['dream', '--kinds', 'bogus'], USAGE],
  // --format garbage.
  [['status', '--format', 'xml'], USAGE],
  [['status', '--format'], USAGE],
  [['status', '--format='], USAGE],
  [['query', 'x', '--format', '-x'], USAGE],
  // Very long and binary-ish arguments.
  [['query', LONG], ANY],
  [['read', BINARYISH], ANY],
  [['query', BINARYISH], ANY],
  [['source', 'add', './x', '--alias', BINARYISH], ANY],
  [[`--${LONG}`], USAGE],
  [[BINARYISH], USAGE],
  [['status', `--${BINARYISH}`], USAGE],
  // Terminal escapes in arguments, echoed by the message (usage and typed errors alike): never raw.
  [['rd', '\x1b]52;c;cHduZWQ=\x07'], USAGE],
  [['\x1b[2J\x1b]0;title\x07'], USAGE],
  [['status', '--x\x1b[2J\x9b1m'], USAGE],
  [['query', 'x', '--kind', '\x1b[31mrule'], USAGE],
  [['read', 'x', '--at', '\x1b]8;;https://evil.example\x1b\\'], ANY],
  [['settings', 'get', '\x1b]0;title\x07'], ANY],
  [['curate', '--session', '\x1b[2J', '--response', 'x'], ANY],
  // An option given twice: the same value is given once; different values are a usage error.
  [['status', '--format', 'json', '--format', 'json'], ANY],
  [['status', '--format=json', '--format', 'json'], ANY],
  [['query', 'x', '--format', 'json', '--format', 'json'], ANY],
  [['status', '--format', 'json', '--format', 'text'], USAGE],
  [['status', '--format', 'text', '--format', 'json'], USAGE],
  [['status', '--format', 'text', '--format', 'text'], ANY],
  [['query', 'x', '--limit', '3', '--limit', '4'], USAGE],
  [['ls', '-C', '.', '-C', '..'], USAGE],
];

// C0 (but tab and newline), DEL and C1: what a terminal acts on.
// eslint-disable-next-line no-control-regex
const RAW_CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/;

async function pool<T>(items: readonly T[], width: number, run: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  await Promise.all(
    Array.from({ length: width }, async () => {
      while (next < items.length) await run(items[next++]!);
    }),
  );
}

test('odd argument vectors: usage errors exit 2 with an envelope or one line, never a stack trace', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  // Each line as is, and asking for JSON (before any "--"; lines about --format itself only as is).
  const runs = CASES.flatMap(([args, code]) => {
    if (args.some((a) => a.startsWith('--format'))) return [{ args, code, json: requestedJson(args) }];
    const end = args.includes('--') ? args.indexOf('--') : args.length;
    return [
      { args, code, json: false },
      { args: [...args.slice(0, end), '--format', 'json', ...args.slice(end)], code, json: true },
    ];
  });
  const problems: string[] = [];
  await pool(runs, 4, async ({ args, code, json }) => {
    const label = args.join(' ').slice(0, 80);
    const problem = (what: string) =>
      problems.push(`${label}: ${what}\n  stdout ${run.stdout.slice(0, 200)}\n  stderr ${run.stderr.slice(0, 300)}`);
    const run = await brv(repo, args);
    if (/^\s+at /m.test(run.stdout + run.stderr) || /YError|TypeError|RangeError/.test(run.stderr)) problem('stack trace');
    if (RAW_CONTROL.test(run.stdout + run.stderr)) problem('a raw control character');
    if (code === ANY ? run.exitCode !== 0 && run.exitCode !== 1 : run.exitCode !== code) problem(`exit ${run.exitCode}`);
    if (json) {
      let envelope: any;
      try {
        envelope = JSON.parse(run.stdout);
      } catch {
        problem('stdout is not JSON');
        return;
      }
      if (typeof envelope.command !== 'string' || typeof envelope.timestamp !== 'string' || typeof envelope.success !== 'boolean')
        problem('not an envelope');
      if (run.exitCode !== 0) {
        const error = envelope.data?.error;
        if (envelope.success !== false || typeof error?.kind !== 'string' || typeof error?.message !== 'string') problem('no error');
        if (run.exitCode === USAGE && error?.kind !== 'usage') problem(`kind ${error?.kind}`);
      }
    } else if (run.exitCode !== 0 && !/^error: [^\n]+\n?$/.test(run.stderr)) problem('not one readable line on stderr');
  });
  t.deepEqual(problems, []);
});

/** JSON when the line asks for it anywhere (a line that also asks for text is a usage error, in JSON). */
function requestedJson(args: string[]): boolean {
  return args.some((a, i) => a === '--format=json' || (a === '--format' && args[i + 1] === 'json'));
}

test('an option given twice with different values: a usage error naming the option and both values, never a silent choice', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const json = await brv(repo, ['status', '--format', 'json', '--format', 'text']);
  t.is(json.exitCode, 2);
  t.like(JSON.parse(json.stdout), { command: 'status', success: false, data: { error: { kind: 'usage' } } });
  t.regex(JSON.parse(json.stdout).data.error.message, /--format was given more than once, with different values \("json", "text"\)/);
  const text = await brv(repo, ['ls', '-C', '.', '-C', '..']);
  t.is(text.exitCode, 2);
  t.regex(text.stderr, /^error: -C was given more than once, with different values \("\.", "\.\."\); give it once\./);
  // The same value twice is given once, on the fast path (query) and through yargs (status).
  for (const args of [['status'], ['query', 'x']]) {
    const twice = await brv(repo, [...args, '--format', 'json', '--format', 'json']);
    t.like(JSON.parse(twice.stdout), { command: args[0] }, twice.stdout);
  }
});

test('error messages quoting a terminal escape from the command line show it as U+FFFD, in JSON too', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const message = async (args: string[]) => {
    const run = await brv(repo, [...args, '--format', 'json']);
    const data = JSON.parse(run.stdout).data;
    return (data.error ?? data.errors?.[0])?.message as string;
  };
  t.regex(await message(['status', '--x\x1b[2J']), /Unknown argument: x\uFFFD\[2J/);
  t.regex(await message(['read', 'x', '--at', '\x1b]0;t\x07']), /"\uFFFD\]0;t\uFFFD"/);
  t.regex(await message(['curate', '--session', '\x1b[2J', '--response', 'x']), /No curate session "\uFFFD\[2J"/);
});

test('an option that needs a value, given an option-like one: usage error naming the option, envelope with the subcommand', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  const text = await brv(repo, ['source', 'add', './x', '--alias', '-x']);
  t.is(text.exitCode, 2);
  t.is(text.stdout, '');
  t.regex(text.stderr, /^error: --alias needs a value \(write a value that starts with "-" as --alias=VALUE\)/);
  const json = await brv(repo, ['source', 'add', './x', '--alias', '-x', '--format', 'json']);
  t.is(json.exitCode, 2);
  t.like(json.json, { command: 'source add', success: false, data: { error: { kind: 'usage' } } });
  t.regex(json.json!.data.error.message, /--alias needs a value/);
});

test('an unexpected failure anywhere: one line (internal-error envelope under --format json), exit 1, the stack only with BRV_DEBUG', async (t) => {
  // A working directory removed under brv: process.cwd() throws, in a command's handler or before it.
  const root = await tempDir('brv-gone-');
  t.teardown(() => cleanup(root));
  const inRemovedDir = async (args: string[], env: Record<string, string> = {}) => {
    const dir = path.join(root, 'gone');
    await mkdir(dir);
    return execa('sh', ['-c', 'cd "$0" && rmdir "$0" && exec node "$@"', dir, CLI, ...args], {
      env: { ...ENV, ...env },
      extendEnv: false,
      reject: false,
      stdin: 'ignore',
    });
  };
  for (const args of [['status'], ['connectors', 'list'], ['vc', 'clone', 'a', 'b'], ['settings', 'list'], ['mcp']]) {
    const label = args.join(' ');
    const text = await inRemovedDir(args);
    t.is(text.exitCode, 1, label);
    t.regex(text.stderr, /^error: Unexpected failure: ENOENT[^\n]*\[internal-error\]\n?$/, `${label}: ${text.stderr}`);
    t.notRegex(text.stdout + text.stderr, /^\s+at /m, label);
    if (args[0] === 'mcp') continue; // stdout is its JSON-RPC channel: the failure goes to stderr only
    const json = await inRemovedDir([...args, '--format', 'json']);
    t.is(json.exitCode, 1, label);
    t.is(json.stderr, '', label);
    t.like(JSON.parse(json.stdout), { command: args[0], success: false, data: { error: { kind: 'internal-error' } } }, label);
    t.regex(JSON.parse(json.stdout).data.error.message, /^Unexpected failure: ENOENT[^\n]*$/);
  }
  const debug = await inRemovedDir(['connectors', 'list', '--format', 'json'], { BRV_DEBUG: '1' });
  t.is(debug.exitCode, 1);
  t.regex(debug.stderr, /^\s+at /m, 'BRV_DEBUG shows the stack on stderr');
  t.is(JSON.parse(debug.stdout).data.error.kind, 'internal-error');
});
