// The browser tests find the dashboard's elements by the test ids of the web UI contract: each one is
// spelled in the client's source exactly as the contract names it (a renamed id fails here, not in Chromium).
import test from 'ava';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const CLIENT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'src', 'web', 'client');

const CONTRACT_IDS = [
  'nav-knowledge',
  'nav-search',
  'nav-changes',
  'nav-reviews',
  'status-bar',
  'tree-topic',
  'topic-title',
  'topic-body',
  'topic-raw',
  'topic-history',
  'history-entry',
  'search-input',
  'search-result',
  'change-entry',
  'review',
  'review-topic',
  'review-approve',
  'review-reject',
  'topic-approve',
  'topic-reject',
  'reviews-empty',
  'error',
  'live-notice',
  // Second slice (webui-contract2.md).
  'history-diff',
  'version-diff',
  'change-expand',
  'topic-edit',
  'edit-text',
  'edit-save',
  'edit-errors',
  'edit-conflict',
  'nav-branches',
  'branch',
  'sync-fetch',
  'sync-pull',
  'sync-push',
  'sync-sync',
  'sync-result',
  'nav-setup',
  'setting',
  'doctor-finding',
];

async function source(): Promise<string> {
  const files = (await readdir(CLIENT)).filter((file) => file.endsWith('.tsx'));
  return (await Promise.all(files.map((file) => readFile(path.join(CLIENT, file), 'utf8')))).join('\n');
}

test('every test id of the contract is in the client', async (t) => {
  const text = await source();
  // data-testid="x", or a literal 'x' given to data-testid through a table (the nav links).
  const missing = CONTRACT_IDS.filter((id) => !text.includes(`data-testid="${id}"`) && !text.includes(`: '${id}',`));
  t.deepEqual(missing, []);
});

test('the elements the tests address by data-path / data-id carry them', async (t) => {
  const text = await source();
  for (const id of ['tree-topic', 'search-result', 'review-topic']) {
    t.regex(text, new RegExp(`data-testid="${id}"\\s+data-path=\\{`), id);
  }
  t.regex(text, /data-testid="review"\s+data-id=\{/);
  t.regex(text, /data-testid="branch"\s+data-name=\{/);
  t.regex(text, /data-testid="setting"\s+data-key=\{/);
});
