import test from 'ava';
import path from 'node:path';
import { brv, brvJson, makeRepo, tempDir } from '../helpers/repo.js';

// Issue 35 §12, the CLI's manners: a command line that stops short names what is missing with an
// example (from the command table, for every command), a command that needs a sub-command lists them,
// ByteRover's commands brv has no twin of point at what brv has, HEAD means the brv branch, and a
// clone of nothing says so. All in this process.

const TOPIC = (p: string, rule: string) => `<bv-topic path="${p}" title="T"><bv-rule>${rule}</bv-rule></bv-topic>`;

test('a missing argument is named, with an example, for text and JSON alike (exit 2)', async (t) => {
  const dir = await tempDir();
  const cases: Array<[string[], RegExp]> = [
    [['read'], /^error: brv read is missing <path>: Topic path.*For example: brv read security\/auth$/],
    [['rm'], /brv rm is missing <path>.*For example: brv rm security\/auth$/],
    [['query'], /brv query is missing <question>.*For example: brv query "how are JWTs signed"$/],
    [['import'], /brv import is missing <dir>.*For example: brv import \.\.\/old-project$/],
    [['vc', 'merge'], /brv vc merge is missing <branch>: The brv branch to merge in\. For example: brv vc merge origin\/main$/],
    [['review', 'approve'], /brv review approve is missing <id>.*For example: brv review approve [0-9a-f]{12}$/],
    [
      ['settings', 'set'],
      /brv settings set is missing <key> and <value>\. <key>: e\.g\. review\.gate\. <value>: .*For example: brv settings set review\.gate true$/,
    ],
    // The words given are in the example.
    [['settings', 'set', 'hooks.preCommit'], /brv settings set is missing <value>: .*For example: brv settings set hooks\.preCommit true$/],
  ];
  for (const [args, message] of cases) {
    const run = await brv(dir, args);
    t.is(run.exitCode, 2, args.join(' '));
    t.regex(run.stderr, message, args.join(' '));
    t.notRegex(run.stderr, /non-option arguments/, args.join(' '));
    const json = await brvJson(dir, args);
    t.is(json.json?.data.error.kind, 'usage', args.join(' '));
    t.regex(json.json?.data.error.message, /is missing <\w+>.*For example: brv /, args.join(' '));
  }
});

test('a command that needs a sub-command lists them on one line (hidden ones left out), with an example', async (t) => {
  const dir = await tempDir();
  for (const [group, subs] of [
    ['vc', ['status', 'log', 'merge', 'clone']],
    ['hooks', ['install', 'uninstall', 'status']],
    ['source', ['add', 'list', 'remove', 'refresh']],
    ['worktree', ['add', 'remove', 'list']],
  ] as const) {
    const run = await brv(dir, [group]);
    t.is(run.exitCode, 2, group);
    t.regex(
      run.stderr,
      new RegExp(
        `^error: Name a ${group} command: [a-z, ]+ or [a-z]+ \\(brv ${group} --help says what each does\\)\\. For example: brv ${group} \\w+$`,
      ),
      group,
    );
    for (const sub of subs) t.regex(run.stderr, new RegExp(`(:|,| or) ${sub}[, ]`), `${group} ${sub}`);
    t.notRegex(run.stderr, /non-option arguments|\brun\b/, group);
    t.is((await brvJson(dir, [group])).json?.data.error.kind, 'usage', group);
  }
  // A word that is no sub-command: yargs would suggest the hidden `hooks run`.
  const unknown = await brv(dir, ['hooks', 'foo']);
  t.regex(unknown.stderr, /Name a hooks command:/);
  t.notRegex(unknown.stderr, /Did you mean run/);
});

test("ByteRover's vc add/commit/reset/init and gen-rules name brv's equivalent", async (t) => {
  const dir = await tempDir();
  const cases: Array<[string[], RegExp]> = [
    [['vc', 'add', '.'], /no staging area.*nothing to add.*brv vc log/],
    [['vc', 'commit', '-m', 'notes'], /commits each change as it is made.*nothing to commit.*brv vc log/],
    [['vc', 'reset', '--hard'], /brv review reject <id>.*brv read <path> --at <rev> --raw \| brv curate --html-file - --overwrite/],
    [['vc', 'init'], /Run `brv init`/],
    [['gen-rules'], /brv connectors install <agent> --type rules/],
    [['--format', 'json', 'vc', 'add'], /no staging area/],
  ];
  for (const [args, hint] of cases) {
    const run = await brv(dir, args);
    t.is(run.exitCode, 2, args.join(' '));
    t.regex(run.stderr + run.stdout, hint, args.join(' '));
    t.notRegex(run.stderr, /Did you mean|Name a vc command|Unknown argument/, args.join(' '));
  }
});

test('HEAD in vc show, vc diff and --at is the brv branch, not git’s code HEAD', async (t) => {
  const repo = await makeRepo();
  await brv(repo, ['init']);
  t.is((await brv(repo, ['curate', '--html-file', '-'], { input: TOPIC('ops/deploy', 'Deploy on Tuesdays.') })).exitCode, 0);
  t.is(
    (await brv(repo, ['curate', '--html-file', '-', '--overwrite'], { input: TOPIC('ops/deploy', 'Deploy on Thursdays.') })).exitCode,
    0,
  );
  const head = await brvJson(repo, ['vc', 'show', 'HEAD']);
  const main = await brvJson(repo, ['vc', 'show', 'main']);
  t.true(head.json?.success, head.stdout);
  t.is(head.json?.data.commit.oid, main.json?.data.commit.oid);
  const previous = await brvJson(repo, ['vc', 'show', 'HEAD~1']);
  t.is(previous.json?.data.commit.oid, (await brvJson(repo, ['vc', 'show', 'main~1'])).json?.data.commit.oid);
  t.regex((await brv(repo, ['vc', 'show', 'HEAD~1:ops/deploy'])).stdout, /Tuesdays/);
  t.regex((await brv(repo, ['read', 'ops/deploy', '--at', '@'])).stdout, /Thursdays/);
  const diff = await brvJson(repo, ['vc', 'diff', 'HEAD~1..HEAD', '--stat']);
  t.true(diff.json?.success, diff.stdout);
  t.regex(diff.stdout, /ops\/deploy/);
});

test('vc clone of a path with no repository is remote-not-found, with nothing about remotes to set', async (t) => {
  const dir = await tempDir();
  const run = await brvJson(dir, ['vc', 'clone', path.join(dir, 'nowhere.git'), path.join(dir, 'copy')]);
  t.is(run.exitCode, 1);
  t.is(run.json?.data.error.kind, 'remote-not-found', run.stdout);
  t.regex(run.json?.data.error.message, /does not exist/);
  t.notRegex(run.json?.data.error.message, /set-url/);
});
