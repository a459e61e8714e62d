import { execa } from 'execa';
import { writeFile, rm, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { plantTree } from '../helpers/plant.js';
import { brvJson, ENV, git, makeRepo } from '../helpers/repo.js';
import { CORPUS } from './fixtures.js';

export const blob = (topicPath: string) => `${topicPath}.html`;

/** Topics for prune and stale besides CORPUS: one citing a file that is deleted below, one citing a file changed after it. */
export const EXTRA: Record<string, string> = {
  'legacy/xml_api':
    '<bv-topic path="legacy/xml_api" title="XML API">\n  <bv-rule id="r1">The XML endpoint parses SOAP envelopes.</bv-rule>\n  <bv-files><li><code>src/xml.ts</code></li></bv-files>\n</bv-topic>\n',
  'tools/lint':
    '<bv-topic path="tools/lint" title="Linting">\n  <bv-rule id="r1">Prettier formats; knip finds unused exports.</bv-rule>\n  <bv-files><li><code>src/lint.ts</code></li></bv-files>\n</bv-topic>\n',
  'config/tokens':
    '<bv-topic path="config/tokens" title="Token settings">\n  <bv-fact subject="access_token_ttl" value="15 minutes">Access tokens live 15 minutes.</bv-fact>\n</bv-topic>\n',
};

/** The later version of a fact: a newer topic stating another value. */
export const NEWER: Record<string, string> = {
  'platform/limits':
    '<bv-topic path="platform/limits" title="Platform limits">\n  <bv-fact subject="access token ttl" value="5 minutes">Access tokens now live 5 minutes.</bv-fact>\n</bv-topic>\n',
};

async function commitCode(repo: string, message: string, date: string): Promise<void> {
  await git(repo, 'add', '-A');
  await execa('git', ['commit', '-q', '-m', message], {
    cwd: repo,
    env: { ...ENV, GIT_AUTHOR_DATE: date, GIT_COMMITTER_DATE: date },
    extendEnv: false,
  });
}

/**
 * A project with brv initialised and the knowledge of the fixture planted in two commits (the second adds
 * the newer fact); its code deletes src/xml.ts and changes src/lint.ts after the topics were written.
 */
export async function dreamRepo(
  topics: Record<string, string> = { ...CORPUS, ...EXTRA },
  newer: Record<string, string> = NEWER,
): Promise<string> {
  const repo = await makeRepo();
  await mkdir(path.join(repo, 'src'), { recursive: true });
  await writeFile(path.join(repo, 'src/xml.ts'), 'export const xml = 1;\n');
  await writeFile(path.join(repo, 'src/lint.ts'), 'export const lint = 1;\n');
  await commitCode(repo, 'code', '2025-06-01T00:00:00Z');
  const init = await brvJson(repo, ['init']);
  if (!init.json?.success) throw new Error(`init failed: ${init.stdout} ${init.stderr}`);
  const files = Object.fromEntries(Object.entries(topics).map(([p, html]) => [blob(p), html]));
  await plantTree(repo, files, { message: 'knowledge' });
  if (Object.keys(newer).length > 0) {
    await plantTree(
      repo,
      { ...files, ...Object.fromEntries(Object.entries(newer).map(([p, html]) => [blob(p), html])) },
      { message: 'newer knowledge' },
    );
  }
  await rm(path.join(repo, 'src/xml.ts'));
  await writeFile(path.join(repo, 'src/lint.ts'), 'export const lint = 2;\n');
  await commitCode(repo, 'drop the XML API, rework lint', '2026-06-01T00:00:00Z');
  return repo;
}
