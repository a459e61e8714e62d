import test from 'ava';
import type { ArgKind } from '../../src/tui/command-line.js';
import { COMMANDS } from '../../src/tui/commands.js';
import { complete, pathCandidates } from '../../src/tui/completion.js';

const TOPICS = ['ops/deploy', 'ops/rollback', 'security/auth/tokens', 'security/auth/keys', 'security/cookies', 'style'];
const VALUES: Record<string, string[]> = {
  topic: TOPICS,
  folder: TOPICS,
  branch: ['main', 'feature/x'],
  remote: ['origin', 'upstream'],
  review: ['a1b2c3d4e5f6'],
  setting: ['review.enabled', 'review.gate'],
  file: ['README.md', 'docs/deploy.md', 'docs/rollback.md', 'src/app.ts'],
};
const values = (kind: ArgKind) => VALUES[kind] ?? [];
const tab = (text: string, cursor = text.length) => complete({ text, cursor }, COMMANDS, values);

test('command names, then sub-commands and options', (t) => {
  t.deepEqual(tab('/rev'), { line: { text: '/review ', cursor: 8 }, choices: [] });
  t.deepEqual(tab('/s').choices, ['search', 'sync', 'sources', 'settings']);
  t.deepEqual(tab('/se'), { line: { text: '/se', cursor: 3 }, choices: ['search', 'settings'] });
  t.deepEqual(tab('/vc ch').line.text, '/vc checkout ');
  t.deepEqual(tab('/vc log --l').line.text, '/vc log --limit ');
  t.deepEqual(tab('/rm x --').choices, ['--recursive', '--reason']);
});

test('topic paths one folder at a time; folders stay open for the next Tab', (t) => {
  t.deepEqual(tab('/read sec'), { line: { text: '/read security/', cursor: 15 }, choices: [] });
  t.deepEqual(tab('/read security/'), { line: { text: '/read security/', cursor: 15 }, choices: ['security/auth/', 'security/cookies'] });
  t.deepEqual(tab('/read security/c').line.text, '/read security/cookies ');
  t.deepEqual(tab('/read security/auth/').choices, ['security/auth/keys', 'security/auth/tokens']);
  t.deepEqual(tab('/ls o').line.text, '/ls ops/', 'folders only for a folder argument');
  t.deepEqual(pathCandidates(TOPICS, '', true), ['ops/', 'security/']);
});

test('values by argument kind: branches, remotes, settings, option values; none for free text or questions', (t) => {
  t.is(tab('/vc checkout fe').line.text, '/vc checkout feature/x ');
  t.is(tab('/sync u').line.text, '/sync upstream ');
  t.deepEqual(tab('/settings review.').choices, ['review.enabled', 'review.gate']);
  t.is(tab('/search deploy --scope o').line.text, '/search deploy --scope ops/');
  t.deepEqual(tab('/query dep').choices, []);
  t.deepEqual(tab('how do we dep'), { line: { text: 'how do we dep', cursor: 13 }, choices: [] });
  t.deepEqual(tab('/nothing x').choices, []);
});

test('completion works at the caret, leaving the rest of the line', (t) => {
  t.deepEqual(tab('/read sec --x', 9), { line: { text: '/read security/ --x', cursor: 15 }, choices: [] });
  t.deepEqual(tab('/rev later', 4), { line: { text: '/review later', cursor: 7 }, choices: [] }, 'the space already there is kept');
});

test('@file mentions after /curate complete work-tree files folder by folder; elsewhere @ is plain text', (t) => {
  t.deepEqual(tab('/curate see @d'), { line: { text: '/curate see @docs/', cursor: 18 }, choices: [] });
  t.deepEqual(tab('/curate see @docs/').choices, ['@docs/deploy.md', '@docs/rollback.md']);
  t.is(tab('/curate see @docs/d').line.text, '/curate see @docs/deploy.md ');
  t.is(tab('/curate @R').line.text, '/curate @README.md ');
  t.deepEqual(tab('/query see @d').choices, []);
  t.is(tab('/query see @d').line.text, '/query see @d');
});

test('the slash commands that mirror CLI commands take their arguments and options from the command table', (t) => {
  const shape = (name: string, sub?: string) => {
    const spec = COMMANDS.find((c) => c.name === name)!;
    const chosen = sub ? spec.subcommands![sub]! : spec;
    return { args: chosen.args, options: chosen.options };
  };
  // What the TUI declared by hand before the table; now derived (src/tui/command-line.ts fromTable).
  t.deepEqual(shape('query'), { args: ['text'], options: { '--answer': 'flag' } });
  t.deepEqual(shape('search'), { args: ['text'], options: { '--scope': 'folder', '--limit': 'text' } });
  t.deepEqual(shape('read'), { args: ['topic'], options: { '--source': 'source' } });
  t.deepEqual(shape('ls'), { args: ['folder'], options: undefined });
  t.deepEqual(shape('edit'), { args: ['topic'], options: undefined });
  t.deepEqual(shape('rm'), { args: ['topic'], options: { '--recursive': 'flag', '--reason': 'text' } });
  t.deepEqual(shape('vc', 'log'), { args: ['topic'], options: { '--limit': 'text', '--all': 'flag' } });
  t.deepEqual(shape('vc', 'diff'), { args: ['branch'], options: undefined });
  t.deepEqual(shape('vc', 'merge'), { args: ['branch'], options: undefined });
  t.deepEqual(shape('sync'), { args: ['remote'], options: undefined });
  // Derived values complete: a branch for /vc merge, a remote for /sync, folders for /search --scope.
  t.deepEqual(tab('/vc merge fea').line.text, '/vc merge feature/x ');
  t.deepEqual(tab('/sync up').line.text, '/sync upstream ');
  t.deepEqual(tab('/search x --scope se').line.text, '/search x --scope security/');
});
