import test from 'ava';
import { mkdir, readFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { brv, git, makeRepo, tempDir } from '../helpers/repo.js';
import { startLlmServer } from '../helpers/llm-server.js';
import { PROVIDERS } from '../../src/models/llm/catalog.js';

const SECRET = 'sk-test-secret-0000-abcdef';

/** Each test its own home and config directory: provider settings are per user. */
async function user(extra: Record<string, string> = {}) {
  const home = await tempDir('brv-user-');
  const env = { HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), GIT_CONFIG_GLOBAL: path.join(home, '.gitconfig'), ...extra };
  const dir = path.join(home, '.config', 'brv');
  const run = (args: string[], options: { input?: string; env?: Record<string, string>; cwd?: string } = {}) =>
    brv(options.cwd ?? home, args, { env: { ...env, ...options.env }, ...(options.input !== undefined ? { input: options.input } : {}) });
  return { home, env, dir, run };
}

function mode(info: { mode: number }): string {
  return (info.mode & 0o777).toString(8);
}

test('with nothing connected, providers list says so and brv works without one', async (t) => {
  const { run } = await user();
  const text = await run(['providers']);
  t.is(text.exitCode, 0, text.stderr);
  t.regex(text.stdout, /No provider in use: brv works without one/);
  for (const { id } of PROVIDERS) t.regex(text.stdout, new RegExp(`^  ${id} `, 'm'), id);
  const json = await run(['providers', 'list', '--format', 'json']);
  t.is(json.json!.data.active, undefined);
  t.is(json.json!.data.providers.length, PROVIDERS.length);
});

test('connect stores the key from standard input in a 0600 file (0700 folder), never prints it; list shows where it comes from', async (t) => {
  const { run, dir } = await user();
  const connected = await run(['providers', 'connect', 'openai', '--api-key', '-', '--model', 'gpt-5'], { input: `${SECRET}\n` });
  t.is(connected.exitCode, 0, connected.stderr);
  t.false(connected.stdout.includes(SECRET) || connected.stderr.includes(SECRET));
  t.regex(connected.stdout, /Connected openai \(model gpt-5\); it is the provider in use/);
  t.regex(connected.stdout, /Key stored in .*credentials\.json/);
  t.is(mode(await stat(dir)), '700');
  t.is(mode(await stat(path.join(dir, 'credentials.json'))), '600');
  t.is(mode(await stat(path.join(dir, 'providers.json'))), '600');
  t.true((await readFile(path.join(dir, 'credentials.json'), 'utf8')).includes(SECRET));
  t.false((await readFile(path.join(dir, 'providers.json'), 'utf8')).includes(SECRET));

  const listed = await run(['providers', 'list', '--format', 'json']);
  t.false(listed.stdout.includes(SECRET));
  const openai = listed.json!.data.providers.find((p: { id: string }) => p.id === 'openai');
  t.like(openai, { connected: true, active: true, model: 'gpt-5', key: { from: 'file' } });
  t.deepEqual(listed.json!.data.active, { provider: 'openai', model: 'gpt-5', from: 'config' });

  // The environment variable wins over the stored key.
  const env = await run(['providers', 'list', '--format', 'json'], { env: { OPENAI_API_KEY: 'sk-from-env-1234567' } });
  t.like(env.json!.data.providers[0], { key: { from: 'env', source: 'environment OPENAI_API_KEY' } });

  const gone = await run(['providers', 'disconnect', 'openai', '--format', 'json']);
  t.like(gone.json!.data, { provider: 'openai', wasActive: true, keyRemoved: true });
  t.false((await readFile(path.join(dir, 'credentials.json'), 'utf8')).includes(SECRET));
  t.regex((await run(['providers'])).stdout, /No provider in use/);
});

test("a key goes to git's credential helper when one is configured, and comes back from it", async (t) => {
  const { run, home, dir } = await user();
  const store = path.join(home, 'git-credentials');
  await git(home, 'config', '--file', path.join(home, '.gitconfig'), 'credential.helper', `store --file=${store}`);
  const connected = await run(['providers', 'connect', 'anthropic', '--api-key', '-', '--format', 'json'], { input: SECRET });
  t.is(connected.exitCode, 0, connected.stderr);
  t.is(connected.json!.data.keyStoredIn, "git's credential helper");
  t.true((await readFile(store, 'utf8')).includes('api.anthropic.com'));
  await t.throwsAsync(readFile(path.join(dir, 'credentials.json'), 'utf8'));
  const listed = await run(['providers', 'list', '--format', 'json']);
  t.like(
    listed.json!.data.providers.find((p: { id: string }) => p.id === 'anthropic'),
    { key: { from: 'credential-helper' } },
  );
  await run(['providers', 'disconnect', 'anthropic']);
  t.false((await readFile(store, 'utf8')).includes(SECRET));
});

test('--key-storage credential-helper without a helper is refused and nothing is stored', async (t) => {
  const { run, dir } = await user();
  const refused = await run(
    ['providers', 'connect', 'openai', '--api-key', '-', '--key-storage', 'credential-helper', '--format', 'json'],
    {
      input: SECRET,
    },
  );
  t.is(refused.exitCode, 1);
  t.is(refused.json!.data.error.kind, 'no-credential-helper');
  await t.throwsAsync(readFile(path.join(dir, 'credentials.json'), 'utf8'));
});

test('bad input is refused clearly: unknown provider, a server without a URL, a non-http URL, switching to one not connected', async (t) => {
  const { run } = await user();
  const unknown = await run(['providers', 'connect', 'skynet', '--format', 'json']);
  t.is(unknown.json!.data.error.kind, 'unknown-provider');
  t.regex(unknown.json!.data.error.message, /openai, anthropic/);
  const noUrl = await run(['providers', 'connect', 'openai-compatible', '--format', 'json']);
  t.is(noUrl.json!.data.error.kind, 'usage');
  const fileUrl = await run(['providers', 'connect', 'openai-compatible', '--base-url', 'file:///etc/passwd', '--format', 'json']);
  t.is(fileUrl.json!.data.error.kind, 'usage');
  const withCredentials = await run([
    'providers',
    'connect',
    'openai-compatible',
    '--base-url',
    'http://user:pw@127.0.0.1:1/v1',
    '--format',
    'json',
  ]);
  t.is(withCredentials.json!.data.error.kind, 'usage');
  const notConnected = await run(['providers', 'switch', 'groq', '--format', 'json']);
  t.is(notConnected.json!.data.error.kind, 'unknown-provider');
  const bare = await run(['model', 'switch', 'gpt-5', '--format', 'json']);
  t.is(bare.json!.data.error.kind, 'no-provider');
  const sub = await run(['providers', 'frobnicate']);
  t.is(sub.exitCode, 2);
});

test('local servers by name, switching providers and models, embeddings on and off', async (t) => {
  const { run } = await user();
  const ollama = await run(['providers', 'connect', 'ollama', '--model', 'llama3.1', '--format', 'json']);
  t.like(ollama.json!.data.provider, {
    id: 'openai-compatible',
    baseUrl: 'http://127.0.0.1:11434/v1',
    model: 'llama3.1',
    key: { from: 'none' },
  });
  t.deepEqual(ollama.json!.data.warnings, []);
  const openai = await run(['providers', 'connect', 'openai', '--no-use', '--format', 'json']);
  t.like(openai.json!.data.provider, { active: false, connected: true });
  t.regex(openai.json!.data.warnings[0], /No API key found for openai/);
  t.like((await run(['providers', 'switch', 'openai', '--format', 'json'])).json!.data.provider, { id: 'openai', active: true });
  t.like((await run(['model', 'switch', 'gpt-4.1', '--format', 'json'])).json!.data.provider, { model: 'gpt-4.1' });
  const models = await run(['model', 'list', '--format', 'json']);
  t.like(models.json!.data, { provider: 'openai', current: 'gpt-4.1', defaultEmbeddingModel: 'text-embedding-3-small' });
  t.true(models.json!.data.models.some((m: { id: string; current: boolean }) => m.id === 'gpt-4.1' && m.current));
  const on = await run(['model', 'switch', '--embedding', 'text-embedding-3-small', '--format', 'json']);
  t.is(on.json!.data.provider.embeddingModel, 'text-embedding-3-small');
  const off = await run(['model', 'switch', '--embedding', 'none', '--format', 'json']);
  t.is(off.json!.data.provider.embeddingModel, undefined);
  const other = await run(['model', 'list', '--provider', 'openai-compatible', '--format', 'json']);
  t.is(other.json!.data.current, 'llama3.1');
});

test('providers check sends one small request and reports usage; BRV_LLM_PROVIDER overrides for one process', async (t) => {
  const server = await startLlmServer();
  t.teardown(() => server.close());
  const { run } = await user();
  await run(['providers', 'connect', 'openai-compatible', '--base-url', server.url, '--model', 'local-model', '--api-key', '-'], {
    input: SECRET,
  });
  server.reply({ text: 'ready' });
  const checked = await run(['providers', 'check']);
  t.is(checked.exitCode, 0, checked.stderr);
  t.regex(checked.stdout, /openai-compatible \(local-model\) answered in \d+ ms: "ready"/);
  t.regex(checked.stdout, /model openai-compatible local-model: 1 request/);
  t.false(checked.stdout.includes(SECRET) || checked.stderr.includes(SECRET));
  t.is(server.requests[0]!.headers.authorization, `Bearer ${SECRET}`);
  t.is(server.requests[0]!.body.model, 'local-model');

  const listed = await run(['providers', 'list', '--format', 'json'], { env: { BRV_LLM_PROVIDER: 'anthropic' } });
  t.deepEqual(listed.json!.data.active, { provider: 'anthropic', model: 'claude-sonnet-4-5', from: 'env' });
  t.regex((await run(['providers'], { env: { BRV_LLM_PROVIDER: 'none' } })).stdout, /No provider in use/);

  server.reply({ status: 401, body: { error: { message: `bad key ${SECRET}` } } });
  const refused = await run(['providers', 'check', '--format', 'json']);
  t.is(refused.exitCode, 1);
  t.is(refused.json!.data.error.kind, 'llm-auth');
  t.false(refused.stdout.includes(SECRET));
});

test('connecting inside a repository writes nothing into it: no key in git config, objects or the work tree', async (t) => {
  const repo = await makeRepo();
  await brv(repo, ['init']);
  const { run } = await user();
  const before = await git(repo, 'status', '--porcelain');
  const connected = await run(['providers', 'connect', 'openai', '--api-key', '-'], { input: SECRET, cwd: repo });
  t.is(connected.exitCode, 0, connected.stderr);
  t.is(await git(repo, 'status', '--porcelain'), before);
  t.false((await git(repo, 'config', '--list')).includes(SECRET));
  t.false((await git(repo, 'log', '--all', '-p')).includes(SECRET));
});

test('brv doctor reports the model in use and where its key comes from, and a missing key as a warning with its fix', async (t) => {
  const repo = await makeRepo();
  await brv(repo, ['init']);
  const { run } = await user();
  const none = await run(['doctor', '--format', 'json'], { cwd: repo });
  t.like(
    none.json!.data.checks.find((c: { name: string }) => c.name === 'model'),
    { status: 'ok' },
  );
  await run(['providers', 'connect', 'openai', '--api-key', '-'], { input: SECRET, cwd: repo });
  const keyed = await run(['doctor', '--format', 'json'], { cwd: repo });
  const check = keyed.json!.data.checks.find((c: { name: string }) => c.name === 'model');
  t.is(check.status, 'ok');
  t.regex(check.message, /openai gpt-5-mini, key from .*credentials\.json/);
  t.false(keyed.stdout.includes(SECRET));
  const missing = await run(['doctor', '--format', 'json'], { cwd: repo, env: { BRV_LLM_PROVIDER: 'anthropic' } });
  const warned = missing.json!.data.checks.find((c: { name: string }) => c.name === 'model');
  t.like(warned, { status: 'warn' });
  t.regex(warned.fix, /brv providers connect anthropic --api-key -/);
});

test('a damaged providers.json is refused with a typed error and its fix, whatever the command; a base URL connect would refuse is refused too', async (t) => {
  const { run, dir } = await user();
  await mkdir(dir, { recursive: true });
  for (const junk of ['{not json', '[]', '{"connections": [{"provider": 3}]}', 'x'.repeat(300 * 1024)]) {
    await writeFile(path.join(dir, 'providers.json'), junk);
    const listed = await run(['providers', 'list', '--format', 'json']);
    t.is(listed.exitCode, 1, junk.slice(0, 20));
    t.is(listed.json!.data.error.kind, 'provider-config-unreadable');
    t.regex(listed.json!.data.error.message, /Fix or delete it/);
  }
  await writeFile(
    path.join(dir, 'providers.json'),
    JSON.stringify({
      active: 'openai-compatible',
      connections: [{ provider: 'openai-compatible', model: 'm', baseUrl: 'file:///etc/passwd' }],
    }),
  );
  const checked = await run(['providers', 'check', '--format', 'json']);
  t.is(checked.json!.data.error.kind, 'provider-config-unreadable');
  t.regex(checked.json!.data.error.message, /brv providers connect openai-compatible --base-url/);
});

test('terminal escapes in a hand-edited providers.json are shown printable, and refused as a model id', async (t) => {
  const { run, dir } = await user();
  await mkdir(dir, { recursive: true });
  const evil = 'gpt\u001b]0;pwned\u0007\u001b[2J';
  await writeFile(
    path.join(dir, 'providers.json'),
    JSON.stringify({ active: 'openai', connections: [{ provider: 'openai', model: evil }] }),
  );
  for (const args of [['providers'], ['model', 'list']]) {
    const shown = await run(args);
    t.is(shown.exitCode, 0, shown.stderr);
    t.false(/[\u0000-\u0008\u000b-\u001f\u007f]/.test(shown.stdout), args.join(' '));
  }
  const refused = await run(['model', 'switch', evil, '--format', 'json']);
  t.is(refused.json!.data.error.kind, 'usage');
});
