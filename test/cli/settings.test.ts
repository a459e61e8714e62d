import test from 'ava';
import { execa } from 'execa';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { SETTINGS, findSetting, parseSetting } from '../../src/settings/registry.js';
import { ENV, brv, brvJson, git, makeRepo, tempDir } from '../helpers/repo.js';

// Settings are git config `brv.*`. Each test gets its own global config file (GIT_CONFIG_GLOBAL), so
// tests that write --global run in parallel without seeing each other.

async function globalEnv(): Promise<Record<string, string>> {
  const home = await tempDir('brv-home-');
  return { HOME: home, GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig') };
}

async function config(cwd: string, env: Record<string, string>, ...args: string[]): Promise<string | undefined> {
  const result = await execa('git', ['config', ...args], { cwd, env: { ...ENV, ...env }, extendEnv: false, reject: false });
  return result.exitCode === 0 ? result.stdout : undefined;
}

async function topicFile(name: string): Promise<string> {
  const file = path.join(await tempDir(), `${name}.html`);
  await writeFile(file, `<bv-topic path="ops/${name}" title="${name}"><bv-rule severity="must">Keep ${name}.</bv-rule></bv-topic>`);
  return file;
}

async function reviewRefs(repo: string): Promise<string[]> {
  return (await git(repo, 'for-each-ref', '--format=%(refname)', 'refs/brv/review/')).split('\n').filter(Boolean);
}

/** An int setting as listed, untouched: its default, with its bounds. */
function intSetting(index: number, value: number) {
  const spec = SETTINGS[index]!;
  return {
    key: spec.key,
    value,
    default: value,
    source: 'default',
    type: 'int',
    min: spec.min,
    max: spec.max,
    description: spec.description,
  };
}

test('list shows every setting with its default, type and description', async (t) => {
  const repo = await makeRepo();
  const env = await globalEnv();
  const listed = await brvJson(repo, ['settings', 'list'], { env });
  t.is(listed.exitCode, 0, listed.stderr);
  t.deepEqual(listed.json!.data.settings, [
    {
      key: 'review.enabled',
      value: true,
      default: true,
      source: 'default',
      type: 'bool',
      description: SETTINGS[0]!.description,
    },
    { key: 'review.gate', value: false, default: false, source: 'default', type: 'bool', description: SETTINGS[1]!.description },
    {
      key: 'hooks.preCommit',
      value: 'warn',
      default: 'warn',
      source: 'default',
      type: 'enum',
      choices: ['warn', 'block'],
      description: SETTINGS[2]!.description,
    },
    intSetting(3, 60),
    intSetting(4, 2),
    { key: 'retrieval.hybrid', value: false, default: false, source: 'default', type: 'bool', description: SETTINGS[5]!.description },
    { key: 'sync.holdRemovals', value: true, default: true, source: 'default', type: 'bool', description: SETTINGS[6]!.description },
    intSetting(7, 10),
    intSetting(8, 20),
    { key: 'sync.requireSigned', value: false, default: false, source: 'default', type: 'bool', description: SETTINGS[9]!.description },
  ]);
  // `brv settings` alone lists too; the text form names each key with its value and source.
  const bare = await brvJson(repo, ['settings'], { env });
  t.deepEqual(bare.json!.data, listed.json!.data);
  const text = await brv(repo, ['settings'], { env });
  t.is(text.exitCode, 0);
  t.regex(text.stdout, /^review\.enabled = true {2}\(default\)$/m);
  t.regex(text.stdout, /^hooks\.preCommit = warn {2}\(default\)$/m);
});

test('set, get and reset in the repository: validated, stored canonical in git config brv.*', async (t) => {
  const repo = await makeRepo();
  const env = await globalEnv();
  const set = await brvJson(repo, ['settings', 'set', 'review.gate', 'YES'], { env });
  t.is(set.exitCode, 0, set.stderr);
  t.deepEqual(set.json!.data, { key: 'review.gate', value: true, scope: 'repository' });
  t.is(await config(repo, env, '--local', 'brv.review.gate'), 'true');
  t.is(await config(repo, env, '--global', 'brv.review.gate'), undefined);
  t.deepEqual((await brvJson(repo, ['settings', 'get', 'review.gate'], { env })).json!.data, {
    key: 'review.gate',
    value: true,
    source: 'repository',
  });
  // Keys are case-insensitive, as in git, and the brv. prefix is accepted; enums are stored as listed.
  t.deepEqual((await brvJson(repo, ['settings', 'set', 'brv.hooks.precommit', 'BLOCK'], { env })).json!.data, {
    key: 'hooks.preCommit',
    value: 'block',
    scope: 'repository',
  });
  t.is(await config(repo, env, 'brv.hooks.preCommit'), 'block');
  t.is((await brv(repo, ['settings', 'get', 'hooks.preCommit'], { env })).stdout, 'hooks.preCommit = block  (repository, default warn)');

  const reset = await brvJson(repo, ['settings', 'reset', 'review.gate'], { env });
  t.deepEqual(reset.json!.data, { key: 'review.gate', scope: 'repository' });
  t.is(await config(repo, env, 'brv.review.gate'), undefined);
  t.deepEqual((await brvJson(repo, ['settings', 'get', 'review.gate'], { env })).json!.data, {
    key: 'review.gate',
    value: false,
    source: 'default',
  });
  // Resetting what is not set is fine; a key set several times (git config --add) is replaced whole.
  t.is((await brvJson(repo, ['settings', 'reset', 'review.gate'], { env })).exitCode, 0);
  await config(repo, env, '--add', 'brv.review.enabled', 'false');
  await config(repo, env, '--add', 'brv.review.enabled', 'false');
  t.is((await brvJson(repo, ['settings', 'set', 'review.enabled', 'on'], { env })).exitCode, 0);
  t.is(await config(repo, env, '--get-all', 'brv.review.enabled'), 'true');
});

test('--global writes the global git config; a repository value overrides it; reset per scope', async (t) => {
  const repo = await makeRepo();
  const env = await globalEnv();
  const set = await brvJson(repo, ['settings', 'set', 'hooks.preCommit', 'block', '--global'], { env });
  t.deepEqual(set.json!.data, { key: 'hooks.preCommit', value: 'block', scope: 'global' });
  t.regex(await readFile(env.GIT_CONFIG_GLOBAL!, 'utf8'), /preCommit = block/);
  t.is(await config(repo, env, '--local', 'brv.hooks.preCommit'), undefined);
  t.deepEqual((await brvJson(repo, ['settings', 'get', 'hooks.preCommit'], { env })).json!.data, {
    key: 'hooks.preCommit',
    value: 'block',
    source: 'global',
  });
  // Another repository of the same user sees the global value.
  const other = await makeRepo();
  t.is((await brvJson(other, ['settings', 'get', 'hooks.preCommit'], { env })).json!.data.value, 'block');

  await brvJson(repo, ['settings', 'set', 'hooks.preCommit', 'warn'], { env });
  const listed = (await brvJson(repo, ['settings', 'list'], { env })).json!.data.settings;
  t.like(listed[2], { key: 'hooks.preCommit', value: 'warn', source: 'repository' });
  // --global reads only the global config.
  t.like((await brvJson(repo, ['settings', 'list', '--global'], { env })).json!.data.settings[2], { value: 'block', source: 'global' });
  t.like((await brvJson(repo, ['settings', 'get', 'hooks.preCommit', '--global'], { env })).json!.data, {
    value: 'block',
    source: 'global',
  });

  const resetRepo = await brv(repo, ['settings', 'reset', 'hooks.preCommit'], { env });
  t.regex(resetRepo.stdout, /it is now block \(global, default warn\)/);
  t.deepEqual((await brvJson(repo, ['settings', 'reset', 'hooks.preCommit', '--global'], { env })).json!.data, {
    key: 'hooks.preCommit',
    scope: 'global',
  });
  t.like((await brvJson(repo, ['settings', 'get', 'hooks.preCommit'], { env })).json!.data, { value: 'warn', source: 'default' });
  t.false((await readFile(env.GIT_CONFIG_GLOBAL!, 'utf8')).includes('preCommit'));
});

test('unknown keys and invalid values exit 1 with a message naming the key; nothing is written', async (t) => {
  const repo = await makeRepo();
  const env = await globalEnv();
  for (const args of [
    ['set', 'review.enable', 'true'],
    ['get', 'review.enable'],
    ['reset', 'review.enable'],
  ]) {
    const text = await brv(repo, ['settings', ...args], { env });
    t.is(text.exitCode, 1, args.join(' '));
    t.regex(
      text.stderr,
      /Unknown setting "review\.enable"\. Known settings: review\.enabled, review\.gate, hooks\.preCommit, llm\.timeout, llm\.retries, retrieval\.hybrid, sync\.holdRemovals, sync\.removalLimit, sync\.removalShare, sync\.requireSigned\./,
    );
    const json = await brvJson(repo, ['settings', ...args], { env });
    t.is(json.exitCode, 1);
    t.false(json.json!.success);
    t.is(json.json!.data.error.kind, 'unknown-setting');
  }
  for (const [key, value, message] of [
    ['review.enabled', 'maybe', 'review.enabled must be true or false, not "maybe".'],
    ['review.gate', '', 'review.gate must be true or false, not "".'],
    ['hooks.preCommit', 'refuse', 'hooks.preCommit must be one of warn, block, not "refuse".'],
  ] as const) {
    const result = await brvJson(repo, ['settings', 'set', key, value], { env });
    t.is(result.exitCode, 1, `${key}=${value}`);
    t.deepEqual(result.json!.data.error, { kind: 'invalid-setting-value', message });
    t.is(await config(repo, env, `brv.${key}`), undefined);
  }
  // Usage errors (no key, an unknown subcommand) exit 2.
  t.is((await brv(repo, ['settings', 'get'], { env })).exitCode, 2);
  t.is((await brv(repo, ['settings', 'sett', 'review.gate', 'true'], { env })).exitCode, 2);
});

test('a value brv cannot read is reported, and behaves as the default', async (t) => {
  const repo = await makeRepo();
  const env = await globalEnv();
  await config(repo, env, 'brv.review.enabled', 'nah');
  t.deepEqual((await brvJson(repo, ['settings', 'list'], { env })).json!.data.settings[0], {
    key: 'review.enabled',
    value: true,
    default: true,
    source: 'repository',
    type: 'bool',
    description: SETTINGS[0]!.description,
    invalid: 'nah',
  });
  t.regex((await brv(repo, ['settings', 'get', 'review.enabled'], { env })).stdout, /stored value "nah" is not valid and is ignored/);
  // It is what the code does: a high-impact curate still opens a review.
  const done = await brvJson(repo, ['curate', '--html-file', await topicFile('nah'), '--meta', '{"impact":"high"}'], { env });
  t.is(done.json!.data.status, 'done');
  t.is((await reviewRefs(repo)).length, 1);
});

test('the settings change what brv does: review.enabled, review.gate, hooks.preCommit', async (t) => {
  const repo = await makeRepo();
  const env = await globalEnv();
  const curateHigh = async (name: string) => {
    const result = await brvJson(repo, ['curate', '--html-file', await topicFile(name), '--meta', '{"impact":"high"}'], { env });
    t.is(result.json?.data.status, 'done', result.stdout + result.stderr);
  };

  await brvJson(repo, ['settings', 'set', 'review.enabled', 'false'], { env });
  await curateHigh('first');
  t.deepEqual(await reviewRefs(repo), []);

  await brvJson(repo, ['settings', 'reset', 'review.enabled'], { env });
  await curateHigh('second');
  t.is((await reviewRefs(repo)).length, 1);

  await brvJson(repo, ['settings', 'set', 'review.gate', 'true'], { env });
  await curateHigh('third');
  const pending = (await brvJson(repo, ['review', 'pending'], { env })).json!.data;
  t.is(pending.pendingCount, 2);
  t.deepEqual(
    pending.tasks.map((task: { gated: boolean }) => task.gated).sort(),
    [false, true],
    'the change made with review.gate true waits on its review ref',
  );
  t.is((await brvJson(repo, ['read', 'ops/third'], { env })).exitCode, 1, 'a held change is not on the branch');

  t.is((await brvJson(repo, ['hooks', 'status'], { env })).json!.data.preCommit, 'warn');
  await brvJson(repo, ['settings', 'set', 'hooks.preCommit', 'block', '--global'], { env });
  t.is((await brvJson(repo, ['hooks', 'status'], { env })).json!.data.preCommit, 'block');
});

test('registry: every setting has a valid default; parsing follows git booleans and the listed choices', (t) => {
  for (const spec of SETTINGS) {
    const parsed = parseSetting(spec, String(spec.default));
    t.deepEqual(parsed, { ok: true, value: spec.default }, spec.key);
    t.true(spec.description.length > 10);
    t.is(findSetting(spec.key.toUpperCase()), spec);
    t.is(findSetting(`brv.${spec.key}`), spec);
  }
  const enabled = findSetting('review.enabled')!;
  for (const text of ['true', 'Yes', 'on', '1']) t.deepEqual(parseSetting(enabled, text), { ok: true, value: true });
  for (const text of ['false', 'NO', 'off', '0']) t.deepEqual(parseSetting(enabled, text), { ok: true, value: false });
  t.false(parseSetting(enabled, '2').ok);
  const int = { key: 'x.limit', type: 'int' as const, default: 10, min: 1, max: 50, description: 'a number' };
  t.deepEqual(parseSetting(int, '50'), { ok: true, value: 50 });
  t.deepEqual(parseSetting(int, '51'), { ok: false, message: 'x.limit must be an integer from 1 to 50, not "51".' });
  t.false(parseSetting(int, '1.5').ok);
  t.is(findSetting('review'), undefined);
});
