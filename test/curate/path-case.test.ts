// Topic paths other filesystems cannot hold apart (case variants) or at all (Windows device names, trailing
// dots): refused on write (curate, import) with a typed error, and never silently collapsed on export; a merge
// that brings two case variants together keeps both (nothing lost) and export reports the one it leaves out.
import test from 'ava';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { exportTree, readTopicBlobs } from '../../src/byterover/export.js';
import { writeTopic } from '../../src/curate/write-topic.js';
import { plantTree } from '../helpers/plant.js';
import { brvJson, git, makeRepo, refTip, tempDir } from '../helpers/repo.js';
import { internals, openBrv } from '../helpers/service.js';

const topic = (p: string, text = 'A rule.') => `<bv-topic path="${p}" title="${p}">\n  <bv-rule>${text}</bv-rule>\n</bv-topic>\n`;

async function initialized(): Promise<string> {
  const repo = await makeRepo();
  await brvJson(repo, ['init']);
  return repo;
}

test('curate refuses a case variant of a topic or folder in the tree, and names other filesystems cannot hold', async (t) => {
  const repo = await initialized();
  const brv = await openBrv(repo);
  try {
    const store = internals(brv).store;
    const write = (p: string, overwrite = false) => writeTopic(store, topic(p), undefined, { branch: brv.branch, overwrite });
    t.true((await write('api/auth')).ok);
    const tip = await refTip(repo);
    const refused: Array<[string, string, string | undefined]> = [
      ['api/Auth', 'path-case-collision', 'api/auth.html'],
      ['API/tokens', 'path-case-collision', 'api'],
      ['Api/Auth', 'path-case-collision', 'api'],
      ['ops/con', 'unsafe-path', undefined],
      ['NUL', 'unsafe-path', undefined],
      ['docs/aux.notes', 'unsafe-path', undefined],
      ['lpt1/x', 'unsafe-path', undefined],
      ['ops/deploy.', 'unsafe-path', undefined],
      ['ops./deploy', 'unsafe-path', undefined],
    ];
    for (const [p, kind, existingPath] of refused) {
      const result = await write(p, true);
      t.false(result.ok, p);
      if (result.ok) continue;
      t.is(String(result.errors[0]?.kind), kind, `${p}: ${result.errors[0]?.message}`);
      t.is(result.errors[0]?.existingPath, existingPath, p);
    }
    t.is(await refTip(repo), tip, 'nothing was written');
    // Names that only look alike are fine, and the existing spelling is still written to.
    for (const p of ['api/auth_v2', 'ops/console', 'ops/com10', 'ops/nul_checks', 'api/auth.v1']) t.true((await write(p)).ok, p);
    t.true((await write('api/auth', true)).ok);
  } finally {
    brv.close();
  }
});

test('a planted tree holding case variants and a device name: still read and written; export keeps one of each pair and reports the other', async (t) => {
  const repo = await initialized();
  await plantTree(repo, {
    'api/Auth.html': topic('api/Auth', 'Upper.'),
    'api/auth.html': topic('api/auth', 'Lower.'),
    'ops/con.html': topic('ops/con', 'Console.'),
    'ops/deploy.html': topic('ops/deploy'),
  });
  const brv = await openBrv(repo);
  try {
    const store = internals(brv).store;
    // Stored paths stay usable: read, and updated in place (the check is for new paths only).
    t.regex((await brv.knowledge.read({ path: 'ops/con' })).content, /Console/);
    t.true((await writeTopic(store, topic('ops/con', 'Console, again.'), undefined, { branch: brv.branch, overwrite: true })).ok);
    t.true((await writeTopic(store, topic('api/auth', 'Lower, again.'), undefined, { branch: brv.branch, overwrite: true })).ok);

    const out = await tempDir();
    const result = await exportTree(await readTopicBlobs(store, await store.snapshot(brv.branch)), out);
    t.deepEqual(result.topics, ['api/Auth', 'ops/con', 'ops/deploy']);
    t.deepEqual(
      result.caseCollisions.map(({ path, kind, exported }) => ({ path, kind, exported })),
      [{ path: 'api/auth', kind: 'path-case-collision', exported: 'api/Auth' }],
    );
    t.regex(result.caseCollisions[0]!.message, /not exported.*letter case/);
    t.deepEqual(await readdir(path.join(out, '.brv', 'context-tree', 'api')), ['Auth.html']);
    // The CLI says so, in text and JSON.
    const json = await brvJson(repo, ['export', path.join(out, 'again')]);
    t.is(json.exitCode, 0);
    t.is(json.json?.data.caseCollisions[0].path, 'api/auth');
  } finally {
    brv.close();
  }
});

test('import: a case variant of the tree or within the import is a typed problem; nothing is lost, the rest imports with skipInvalid', async (t) => {
  const repo = await initialized();
  const brv = await openBrv(repo);
  try {
    await writeTopic(internals(brv).store, topic('api/auth'), undefined, { branch: brv.branch, overwrite: false });
    const source = await tempDir();
    await mkdir(path.join(source, 'api'));
    await mkdir(path.join(source, 'docs'));
    await writeFile(path.join(source, 'api', 'Auth.html'), topic('api/Auth'));
    await writeFile(path.join(source, 'docs', 'Guide.html'), topic('docs/Guide'));
    await writeFile(path.join(source, 'docs', 'guide.html'), topic('docs/guide'));
    await writeFile(path.join(source, 'docs', 'prn.html'), topic('docs/prn'));
    await writeFile(path.join(source, 'docs', 'setup.html'), topic('docs/setup'));
    const tip = await refTip(repo);
    const refused = await brv.knowledge.importTree({ directory: source }, {});
    t.false(refused.ok);
    t.is(await refTip(repo), tip, 'nothing imported');
    const kinds = refused.problems.map((p) => `${p.file.split(path.sep).slice(-2).join('/')}:${p.errors[0]?.kind}`).sort();
    t.deepEqual(kinds, ['api/Auth.html:path-case-collision', 'docs/guide.html:path-case-collision', 'docs/prn.html:unsafe-path']);
    const partial = await brv.knowledge.importTree({ directory: source, skipInvalid: true }, {});
    t.true(partial.ok);
    t.deepEqual(partial.added.sort(), ['docs/Guide', 'docs/setup']);
    t.is(partial.problems.length, 3, 'the topics left out are reported');
  } finally {
    brv.close();
  }
});

test('merging two branches that each add a case variant: no crash, both kept, export reports the collision', async (t) => {
  const repo = await initialized();
  const base = await plantTree(repo, { 'ops/deploy.html': topic('ops/deploy') });
  await git(repo, 'update-ref', 'refs/brv/heads/other', base);
  await plantTree(repo, { 'ops/deploy.html': topic('ops/deploy'), 'api/auth.html': topic('api/auth', 'Ours.') });
  await plantTree(
    repo,
    { 'ops/deploy.html': topic('ops/deploy'), 'api/Auth.html': topic('api/Auth', 'Theirs.') },
    { ref: 'refs/brv/heads/other' },
  );
  const brv = await openBrv(repo);
  try {
    const merged = await brv.history.merge({ source: 'other' }, {});
    t.truthy(merged);
    const store = internals(brv).store;
    const files = await store.listFiles(await store.snapshot(brv.branch));
    t.deepEqual(files.filter((f) => f.startsWith('api/')).sort(), ['api/Auth.html', 'api/auth.html']);
    const result = await exportTree(await readTopicBlobs(store, await store.snapshot(brv.branch)), await tempDir());
    t.deepEqual(
      result.caseCollisions.map((c) => c.path),
      ['api/auth'],
    );
  } finally {
    brv.close();
  }
});
