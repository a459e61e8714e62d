import test from 'ava';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parseResponseBody } from '../../src/curate/envelope.js';
import { deleteFile, readInputFile } from '../../src/curate/response-file.js';
import { brv, cleanup, makeRepo, tempDir } from '../helpers/repo.js';

test('deleteFile reports a failure as a message instead of throwing', async (t) => {
  const dir = await tempDir();
  t.regex((await deleteFile(path.join(dir, 'gone.json')))!, /ENOENT/);
  const file = path.join(dir, 'here.json');
  await writeFile(file, '{}');
  t.is(await deleteFile(file), undefined);
});

test('readInputFile enforces its size limit before reading', async (t) => {
  const dir = await tempDir();
  const file = path.join(dir, 'x.json');
  await writeFile(file, 'x'.repeat(101));
  const result = await readInputFile(file, 100);
  t.false(result.ok);
  t.is(!result.ok && result.kind, 'too-large');
  t.deepEqual(await readInputFile(file, 1000), { ok: true, text: 'x'.repeat(101) });
});

const SECRET = 'root:$6$S3CRETHASH:19000:0:99999:7:::';

test('a response that is not JSON is described, never quoted: not JSON, where it breaks, its size', (t) => {
  for (const [body, expected] of [
    [`${SECRET}\n`, /does not begin with "\{", 38 bytes/],
    [`  {"html": "${SECRET}`, /ends before the JSON object is complete/],
    [`{"html": ${SECRET}}`, /syntax error/],
    [`{"html": "x",\n "meta": {S3CRET}}`, /syntax error at line 2, column 11/],
    [`{"a": 1}\n${SECRET}`, /syntax error at line 2, column 1/],
    [`\`\`\`json\n${SECRET}\n\`\`\``, /does not begin with "\{"/],
    ['\n\t ', /blank/],
  ] as const) {
    const parsed = parseResponseBody(body);
    t.false(parsed.ok);
    if (parsed.ok) continue;
    t.is(parsed.kind, 'invalid-response-format');
    t.regex(parsed.message, expected, body);
    t.false(/S3CRET|root|HASH/.test(parsed.message), parsed.message);
  }
});

test('--response-file pointing at a file that is not a response echoes none of its bytes', async (t) => {
  const repo = await makeRepo();
  const file = path.join(await tempDir(), 'shadow');
  await writeFile(file, `${SECRET}\ndaemon:*:19000:0:99999:7:::\n`);
  const run = (args: string[]) => brv(repo, [...args, '--format', 'json']);
  const start = JSON.parse((await run(['curate', 'record something'])).stdout);
  const result = await run(['curate', '--session', start.data.sessionId, '--response-file', file]);
  t.regex(result.stdout, /not valid JSON \(it does not begin with/);
  t.false(/S3CRET|root|daemon/.test(result.stdout + result.stderr), result.stdout);
  const html = await run(['curate', '--html-file', file]);
  t.false(/S3CRET|root|daemon/.test(html.stdout + html.stderr), html.stdout);
  await cleanup(repo, path.dirname(file));
});
