import test from 'ava';
import { existsSync } from 'node:fs';
import { execa } from 'execa';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, git, makeRepo, ROOT, tempDir, type BrvRun } from '../helpers/repo.js';

/**
 * Golden files for what every command prints, in `--format text` and `--format json`: one file per
 * command and format in fixtures/golden/. `UPDATE_GOLDEN=1 npx ava test/golden/cli-output.test.ts`
 * (`npm run golden:update`) rewrites them; read the diff, it is the product's output.
 *
 * The same script of commands runs in two pinned repositories, one per format, so commands that
 * change state run once per format. Object ids, review and session ids, times, durations, temp paths
 * and versions are normalised.
 */
const GOLDEN = path.join(ROOT, 'fixtures/golden');
const UPDATE = process.env.UPDATE_GOLDEN === '1';

type Format = 'text' | 'json';

interface Context {
  format: Format;
  repo: string;
  bare: string;
  scratch: string;
  /** Curate sessions opened so far, the last one being continued. */
  sessions: string[];
  reviews: string[];
}

interface Step {
  /** The golden file's name (without the format). */
  name: string;
  args: (c: Context) => string[];
  cwd?: (c: Context) => string;
  input?: string;
  /** More environment for the command (an editor). */
  env?: (c: Context) => Record<string, string>;
  /** Runs before the command (setup that is not itself recorded). */
  before?: (c: Context) => Promise<void>;
  after?: (c: Context, run: BrvRun) => void;
}

const TOPIC = (p: string, title: string, rule: string) =>
  JSON.stringify({
    html: `<bv-topic path="${p}" title="${title}" summary="How ${title.toLowerCase()} works"><bv-rule id="r1" severity="must">${rule}</bv-rule><bv-reason>Agreed in review.</bv-reason></bv-topic>`,
    meta: { impact: 'low', reason: 'golden' },
  });

async function reviewIds(repo: string): Promise<string[]> {
  const refs = await git(repo, 'for-each-ref', '--format=%(refname:lstrip=3)', 'refs/brv/review/');
  return refs.split('\n').filter(Boolean);
}

const STEPS: Step[] = [
  { name: 'init', args: () => ['init'] },
  {
    name: 'curate-kickoff',
    args: () => ['curate', 'JWTs are signed with RS256; keys rotate monthly'],
    after: (c, run) => c.sessions.push(sessionOf(run) ?? 'missing'),
  },
  {
    name: 'curate-continuation',
    args: (c) => [
      'curate',
      '--session',
      c.sessions.at(-1) ?? 'missing',
      '--response',
      TOPIC('security/jwt', 'JWT signing', 'Sign every token with RS256.'),
    ],
  },
  {
    name: 'curate-one-shot',
    before: async (c) => {
      await writeFile(
        path.join(c.scratch, 'topic.html'),
        '<bv-topic path="api/errors" title="API errors"><bv-rule severity="should">Return problem+json with a type URI.</bv-rule></bv-topic>\n',
      );
    },
    args: (c) => ['curate', '--html-file', path.join(c.scratch, 'topic.html'), '--meta', '{"impact":"low","reason":"one-shot"}'],
  },
  {
    name: 'curate-invalid',
    args: () => ['curate', '--html-file', '/nonexistent/brv-golden.html'],
  },
  {
    name: 'curate-continuation-invalid',
    before: async (c) => {
      const start = await brv(c.repo, ['curate', 'record the deploy rule', '--format', 'json']);
      c.sessions.push(sessionOf(start) ?? 'missing');
    },
    args: (c) => [
      'curate',
      '--session',
      c.sessions.at(-1) ?? 'missing',
      '--response',
      '{"html":"<bv-topic path=\\"ops/x\\"><bv-nope/></bv-topic>"}',
    ],
  },
  { name: 'curate-view', args: () => ['curate', 'view'] },
  { name: 'status', args: () => ['status'] },
  { name: 'query', args: () => ['query', 'how are tokens signed'] },
  { name: 'query-no-match', args: () => ['query', 'kubernetes autoscaling quotas'] },
  { name: 'search', args: () => ['search', 'problem json'] },
  { name: 'maintenance', args: () => ['maintenance'] },
  { name: 'read', args: () => ['read', 'security/jwt'] },
  { name: 'read-missing', args: () => ['read', 'no/such/topic'] },
  { name: 'ls', args: () => ['ls'] },
  { name: 'vc-log', args: () => ['vc', 'log'] },
  { name: 'vc-show', args: () => ['vc', 'show'] },
  { name: 'vc-diff', args: () => ['vc', 'diff'] },
  { name: 'vc-diff-range-stat', args: () => ['vc', 'diff', 'main~2..main', '--stat'] },
  { name: 'vc-status', args: () => ['vc', 'status'] },
  { name: 'vc-branch-create', args: () => ['vc', 'branch', 'experiment'] },
  { name: 'vc-branch', args: () => ['vc', 'branch'] },
  { name: 'vc-checkout', args: () => ['vc', 'checkout', 'experiment'] },
  {
    name: 'curate-on-branch',
    args: () => ['curate', '--html-file', 'topic2.html', '--meta', '{"impact":"low","reason":"branch work"}'],
    before: async (c) => {
      await writeFile(
        path.join(c.repo, 'topic2.html'),
        '<bv-topic path="db/migrations" title="Migrations"><bv-rule severity="must">Never edit an applied migration.</bv-rule></bv-topic>\n',
      );
    },
  },
  { name: 'vc-checkout-main', args: () => ['vc', 'checkout', 'main'] },
  { name: 'vc-merge', args: () => ['vc', 'merge', 'experiment'] },
  { name: 'vc-branch-delete', args: () => ['vc', 'branch', '-d', 'experiment'] },
  { name: 'vc-config', args: () => ['vc', 'config', 'user.name'] },
  { name: 'vc-config-set', args: () => ['vc', 'config', 'user.email', 'ada@example.com'] },
  { name: 'vc-remote-add', args: (c) => ['vc', 'remote', 'add', 'origin', c.bare] },
  { name: 'vc-remote-set-url', args: (c) => ['vc', 'remote', 'set-url', 'origin', c.bare] },
  { name: 'vc-remote', args: () => ['vc', 'remote'] },
  { name: 'vc-push', args: () => ['vc', 'push'] },
  { name: 'vc-fetch', args: () => ['vc', 'fetch'] },
  { name: 'vc-pull', args: () => ['vc', 'pull'] },
  { name: 'sync', args: () => ['sync'] },
  { name: 'vc-clone', args: (c) => ['vc', 'clone', c.bare, path.join(c.scratch, 'clone')], cwd: (c) => c.scratch },
  {
    name: 'curate-high-impact',
    args: () => ['curate', '--html-file', 'topic3.html', '--meta', '{"impact":"high","reason":"drops data"}'],
    // An agent's write: review pending names it.
    env: () => ({ BRV_AGENT: 'claude-code' }),
    before: async (c) => {
      await writeFile(
        path.join(c.repo, 'topic3.html'),
        '<bv-topic path="ops/deploy" title="Deploys"><bv-rule severity="must">Drop the cache table on deploy.</bv-rule></bv-topic>\n',
      );
    },
  },
  {
    name: 'review-pending',
    before: async (c) => {
      c.reviews = await reviewIds(c.repo);
    },
    args: () => ['review', 'pending'],
  },
  { name: 'review-approve', args: (c) => ['review', 'approve', c.reviews[0] ?? 'missing'] },
  // One review open at a time: review ids are commit oid prefixes, and pending lists them by id.
  { name: 'rm', args: () => ['rm', 'api/errors'] },
  {
    name: 'review-reject',
    before: async (c) => {
      c.reviews = [...c.reviews, ...(await reviewIds(c.repo))];
    },
    args: (c) => ['review', 'reject', c.reviews[1] ?? 'missing'],
  },
  { name: 'review-none-pending', args: () => ['review'] },
  { name: 'review-disable', args: () => ['review', '--disable'] },
  { name: 'review-enable', args: () => ['review', '--enable'] },
  { name: 'hooks-status', args: () => ['hooks', 'status'] },
  { name: 'hooks-install', args: () => ['hooks', 'install'] },
  { name: 'connectors-list', args: () => ['connectors', 'list'] },
  { name: 'connectors-status', args: () => ['connectors', 'status'] },
  { name: 'connectors-install', args: () => ['connectors', 'install', 'claude-code'] },
  { name: 'settings-list', args: () => ['settings', 'list'] },
  { name: 'settings-get', args: () => ['settings', 'get', 'review.enabled'] },
  { name: 'settings-set', args: () => ['settings', 'set', 'review.gate', 'true'] },
  { name: 'settings-reset', args: () => ['settings', 'reset', 'review.gate'] },
  { name: 'worktree-add', args: (c) => ['worktree', 'add', path.join(c.scratch, 'wt'), '-b', 'wt-code'] },
  { name: 'worktree-list', args: () => ['worktree', 'list'] },
  { name: 'worktree-remove', args: (c) => ['worktree', 'remove', path.join(c.scratch, 'wt')] },
  { name: 'source-list', args: () => ['source', 'list'] },
  { name: 'export', args: (c) => ['export', path.join(c.scratch, 'exported')] },
  { name: 'import', args: (c) => ['import', path.join(c.scratch, 'exported')], cwd: (c) => path.join(c.scratch, 'clone') },
  { name: 'source-add', args: (c) => ['source', 'add', path.join(c.scratch, 'clone'), '--alias', 'team'] },
  { name: 'source-list-one', args: () => ['source', 'list'] },
  { name: 'query-with-source', args: () => ['query', 'migration'] },
  { name: 'search-with-source', args: () => ['search', 'migration'] },
  { name: 'source-refresh', args: () => ['source', 'refresh'] },
  { name: 'source-remove', args: () => ['source', 'remove', 'team'] },
  { name: 'hook-prompt-submit', args: () => ['hook-prompt-submit'], input: '{}' },
  { name: 'doctor', args: () => ['doctor'] },
  { name: 'hooks-uninstall', args: () => ['hooks', 'uninstall'] },
  { name: 'connectors-uninstall', args: () => ['connectors', 'uninstall', 'claude-code'] },
  { name: 'doctor-outside-repository', args: () => ['doctor'], cwd: (c) => c.scratch },
  {
    name: 'edit',
    before: async (c) => {
      // The PATH has node, git and sh only: the editor uses sh's printf.
      const html =
        '<bv-topic path="security/jwt" title="JWT signing" summary="How jwt signing works"><bv-rule id="r1" severity="must">Sign every token with RS256 or EdDSA.</bv-rule><bv-reason>Agreed in review.</bv-reason></bv-topic>';
      await writeFile(path.join(c.scratch, 'editor.sh'), `printf '%s' '${html}' > "$1"\n`);
    },
    env: (c) => ({ EDITOR: `sh ${path.join(c.scratch, 'editor.sh')}` }),
    args: () => ['edit', 'security/jwt'],
  },
  {
    name: 'review-approve-unresolved',
    before: async (c) => {
      // A merge that keeps both versions of rule r1 of security/jwt: one merge review.
      const put = async (rule: string) => {
        const file = path.join(c.scratch, 'conflict.html');
        await writeFile(file, `<bv-topic path="security/jwt" title="JWT signing"><bv-rule id="r1">${rule}</bv-rule></bv-topic>`);
        await brv(c.repo, ['curate', '--html-file', file, '--overwrite']);
      };
      await brv(c.repo, ['vc', 'checkout', '-b', 'other-side']);
      await put('Sign with EdDSA only.');
      await brv(c.repo, ['vc', 'checkout', 'main']);
      await put('Sign with RS256 only.');
      await brv(c.repo, ['vc', 'merge', 'other-side']);
      c.reviews = [...c.reviews, ...(await reviewIds(c.repo))];
    },
    args: (c) => ['review', 'approve', c.reviews.at(-1) ?? 'missing'],
  },
  { name: 'review-show', args: (c) => ['review', 'show', c.reviews.at(-1) ?? 'missing'] },
  { name: 'review-resolve', args: (c) => ['review', 'resolve', c.reviews.at(-1) ?? 'missing', 'security/jwt', '--theirs'] },
  {
    name: 'review-reject-conflict',
    before: async (c) => {
      // A high-impact change to ops/runbook, then a later edit of the same rule: its reject conflicts.
      const put = async (rule: string, meta?: string) => {
        const file = path.join(c.scratch, 'runbook.html');
        await writeFile(file, `<bv-topic path="ops/runbook" title="Runbook"><bv-rule id="r1">${rule}</bv-rule></bv-topic>`);
        await brv(c.repo, ['curate', '--html-file', file, '--overwrite', ...(meta ? ['--meta', meta] : [])]);
      };
      await put('Page the on-call engineer.');
      const before = await reviewIds(c.repo);
      await put('Page nobody at night.', '{"impact":"high","reason":"changes paging"}');
      c.reviews = [...c.reviews, ...(await reviewIds(c.repo)).filter((id) => !before.includes(id))];
      await put('Page the on-call engineer and the lead.');
    },
    args: (c) => ['review', 'reject', c.reviews.at(-1) ?? 'missing'],
  },
  { name: 'unknown-command', args: () => ['frobnicate'] },
  { name: 'byterover-command', args: () => ['pull'] },
  { name: 'completion', args: () => ['completion', 'bash'] },
  { name: 'settings-global-outside-repository', args: () => ['settings', 'get', 'review.gate', '--global'], cwd: (c) => c.scratch },
];

function sessionOf(run: BrvRun): string | undefined {
  return run.json?.data.sessionId ?? /^Session: (\S+)$/m.exec(run.stdout)?.[1];
}

/** Replaces what differs between runs and machines with placeholders. */
function normalise(text: string, c: Context): string {
  let out = text;
  for (const [dir, name] of [
    [c.scratch, '<scratch>'],
    [c.bare, '<remote>'],
    [c.repo, '<repo>'],
    [process.env.HOME ?? '/nonexistent-home', '<home>'],
  ] as const)
    out = out.split(dir).join(name);
  for (const [i, id] of c.sessions.entries()) out = out.split(id).join(`<session-${i + 1}>`);
  // Review ids are prefixes of commit oids: only a whole word is a review id.
  for (const [i, id] of c.reviews.entries()) out = out.replace(new RegExp(`\\b${id}\\b`, 'g'), `<review-${i + 1}>`);
  return out
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:\d\d)/g, '<time>')
    .replace(/\b(?=[0-9a-f]*\d)[0-9a-f]{7,40}\b/g, '<oid>')
    .replace(/\/(?:tmp|var\/folders)\/[^\s"'`]*/g, '<tmp>')
    .replace(/\b\d+(?:\.\d+)? ?ms\b/g, '<n> ms')
    .replace(/"(\w*Ms|ms)": \d+(?:\.\d+)?/g, '"$1": <n>')
    .replace(/\bgit version [\d.]+\S*/g, 'git version <version>')
    .replace(/\bv?\d+\.\d+\.\d+(?:[-.][\w.]+)?\b/g, '<version>');
}

function record(c: Context, args: string[], run: BrvRun): string {
  const lines = [`$ brv ${args.join(' ')}`, `exit ${run.exitCode}`];
  if (c.format === 'json') {
    let body: string;
    try {
      const parsed = JSON.parse(run.stdout);
      body = JSON.stringify(parsed, null, 2);
    } catch {
      body = run.stdout;
    }
    lines.push('--- stdout', body);
  } else lines.push('--- stdout', run.stdout);
  if (run.stderr) lines.push('--- stderr', run.stderr);
  return `${normalise(lines.join('\n'), c)}\n`;
}

/**
 * A PATH with node, git and sh only: doctor and hooks say whether brv is on PATH, and that must not
 * depend on the machine the test runs on.
 */
async function minimalPath(): Promise<string> {
  const bin = await tempDir('brv-golden-bin-');
  const which = (name: string) => execa('sh', ['-c', `command -v ${name}`]).then((r) => r.stdout.trim());
  await symlink(process.execPath, path.join(bin, 'node'));
  await symlink(await which('git'), path.join(bin, 'git'));
  await symlink(await which('sh'), path.join(bin, 'sh'));
  return bin;
}

async function runScript(format: Format): Promise<Map<string, string>> {
  const repo = await makeRepo();
  const bare = await makeRepo({ bare: true });
  const scratch = await tempDir('brv-golden-');
  const env = { PATH: await minimalPath() };
  const c: Context = { format, repo, bare, scratch, reviews: [], sessions: [] };
  const outputs = new Map<string, string>();
  for (const step of STEPS) {
    await step.before?.(c);
    const args = step.args(c);
    const full = [...args, '--format', format];
    const stepEnv = { ...env, ...step.env?.(c) };
    const run = await brv(step.cwd?.(c) ?? repo, full, step.input === undefined ? { env: stepEnv } : { env: stepEnv, input: step.input });
    step.after?.(c, run);
    outputs.set(step.name, record(c, args, run));
  }
  return outputs;
}

for (const format of ['text', 'json'] as const) {
  test(`every command's --format ${format} output matches fixtures/golden`, async (t) => {
    const outputs = await runScript(format);
    const mismatched: string[] = [];
    for (const [name, actual] of outputs) {
      const file = path.join(GOLDEN, `${name}.${format}.txt`);
      if (UPDATE) {
        await mkdir(GOLDEN, { recursive: true });
        await writeFile(file, actual);
        continue;
      }
      const expected = existsSync(file) ? await readFile(file, 'utf8') : undefined;
      if (expected !== actual) {
        mismatched.push(name);
        t.is(actual, expected ?? '(no golden file)', `${name}.${format}.txt differs (UPDATE_GOLDEN=1 rewrites it; review the diff)`);
      }
    }
    t.deepEqual(mismatched, []);
  });
}
