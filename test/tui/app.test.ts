import test from 'ava';
import { threeTopics } from '../helpers/knowledge.js';
import { plantTree } from '../helpers/plant.js';
import { conflictedMerge } from '../helpers/merge-review.js';
import { curateTopic, reply, showTopic } from '../helpers/repo.js';
import { openBrv } from '../helpers/service.js';
import { mountApp } from '../helpers/tui-app.js';
import { BrvError } from '../../src/base/errors.js';

// The REPL as a component, in ink's test renderer, against a real repository through the real
// service. The pseudo-terminal end to end (a real `brv`, tmux) is test/tui/terminal.test.ts.

const ENTER = '\r';
const ESC = '\u001b';
const DOWN = '\u001b[B';
const TAB = '\t';
const CTRL_C = '\u0003';

test.serial('a question lists ranked topics; Enter opens one rendered; Esc goes back; the status line fills in', async (t) => {
  const repo = await threeTopics();
  const ui = mountApp(t, repo);
  await ui.see(/3 topics · no reviews/);
  await ui.type('session tokens');
  await ui.type(ENTER);
  const results = await ui.see(/Search: session tokens/);
  t.regex(results, /› 1\. /);
  t.regex(results, /security\/cookies/);
  t.regex(results, /security\/auth/);
  t.deepEqual(ui.saved, ['session tokens'], 'the question is kept in the history');
  // The second result, opened: ↓ and Enter read together open what ↓ selected.
  const second = /2\. (Session cookies|Auth tokens)/.exec(results)![1]!;
  await ui.type(`${DOWN}${ENTER}`);
  const topic = await ui.see(new RegExp(`${second}\\n═+`));
  t.regex(topic, second === 'Auth tokens' ? /RS256/ : /HttpOnly/);
  await ui.type(ESC);
  await ui.see(/Search: session tokens/);
  await ui.type(ESC);
  await ui.see(/Ask a question and press Enter/);
});

test.serial('slash commands: Tab completes, /ls and /vc log page their output, a mistake is said and nothing runs', async (t) => {
  const repo = await threeTopics();
  const ui = mountApp(t, repo);
  await ui.see(/3 topics/);
  await ui.type('/l');
  await ui.type(TAB);
  await ui.see(/› \/ls\s*$/m);
  await ui.type('s');
  await ui.type(TAB);
  await ui.see(/› \/ls security\/$/m);
  await ui.type(ENTER);
  const listed = await ui.see(/Topics under security\//);
  t.regex(listed, /security\/auth\nsecurity\/cookies\n\(2 topics\)/);
  await ui.type(ESC);
  // Typed only once the prompt is back: keys sent right after ESC can be read as one Alt sequence.
  await ui.see(/Ask a question/);
  await ui.type('/vc log --limit 2');
  await ui.see(/› \/vc log --limit 2$/m);
  await ui.type(ENTER);
  const log = await ui.see(/History/);
  t.regex(log, /curate: ops\/deploy/);
  t.notRegex(log, /curate: security\/cookies/, 'two commits only');
  await ui.type(ESC);
  await ui.see(/Ask a question/);
  await ui.type('/vc blame');
  await ui.type(ENTER);
  await ui.see(/\/vc has no sub-command blame: log, diff, status, branch, checkout, merge\./);
  // Typed and entered before the screen is drawn again (a loaded machine): Enter sees the text.
  ui.app.stdin.write('/read nowhere/topic');
  ui.app.stdin.write(ENTER);
  await ui.see(/not-found: No topic at nowhere\/topic/);
});

test.serial(
  '/review: a change an agent made is shown with its diff; r rejects it and the topic is back; the inbox empties live',
  async (t) => {
    const repo = await threeTopics();
    await curateTopic(
      repo,
      reply('security/cookies', 'Session cookies', '<bv-rule severity="must">Session tokens live in Secure HttpOnly cookies.</bv-rule>', {
        impact: 'high',
        reason: 'security review',
      }),
      ['--overwrite'],
    );
    const ui = mountApp(t, repo);
    await ui.see(/1 review pending/);
    await ui.type('/review');
    await ui.type(ENTER);
    const review = await ui.see(/UPDATE security\/cookies/);
    t.regex(review, /Why: security review/);
    t.regex(review, /-- \*\*Rule\*\* \[must\]: Session tokens live in HttpOnly cookies\./);
    t.regex(review, /\+- \*\*Rule\*\* \[must\]: Session tokens live in Secure HttpOnly cookies\./);
    await ui.type('r');
    await ui.see(/Nothing to review: every change is decided\./);
    await ui.see(/Rejected security\/cookies/);
    t.notRegex((await showTopic(repo, 'security/cookies.html')) ?? '', /Secure/);
    await ui.see(/no reviews/);
  },
);

test.serial(
  '/review: a merge conflict is resolved per section (t, o) as in the dashboard; the diff then shown is what approving keeps',
  async (t) => {
    const { repo } = await conflictedMerge();
    const ui = mountApp(t, repo);
    await ui.see(/1 review pending/);
    await ui.type('/review');
    await ui.type(ENTER);
    const shown = await ui.see(/2 merge conflicts to resolve before approving/);
    t.regex(shown, /by Ada Author <ada@example\.com>/, 'who made it');
    t.regex(shown, /› bv-rule#r1/);
    t.regex(shown, /ours:\n.*Ours one\./);
    t.regex(shown, /theirs:\n.*Theirs one\./);
    t.regex(shown, /o ours · t theirs · b both/);
    await ui.type('a');
    await ui.see(/unresolved-conflicts/);
    await ui.type('t');
    await ui.see(/Kept theirs for bv-rule#r1 of ops\/deploy; 1 left\./);
    t.regex(await ui.see(/1 merge conflict to resolve/), /› bv-rule#r2/);
    await ui.type('o');
    const landed = await ui.see(/nothing left to resolve: a approves/);
    // Before the merge (ours) against the branch now: r1 became theirs, r2 stayed ours; no conflict scaffolding.
    t.regex(landed, /^-.*Ours one\./m);
    t.regex(landed, /^\+.*Theirs one\./m);
    t.notRegex(landed, /Merge conflict|Theirs two|^[+-].*Ours two/m);
    await ui.type('a');
    await ui.see(/Approved ops\/deploy/);
    t.regex((await showTopic(repo, 'ops/deploy.html')) ?? '', /Theirs one\.[\s\S]*Ours two\./);
  },
);

test.serial('live: a change made elsewhere is announced and the open topic is read again', async (t) => {
  const repo = await threeTopics();
  const ui = mountApp(t, repo);
  await ui.see(/3 topics/);
  await ui.type('/read ops/deploy');
  await ui.type(ENTER);
  await ui.see(/blue-green/);
  await curateTopic(repo, reply('ops/deploy', 'Deploys', '<bv-rule severity="must">Deploy with canary releases first.</bv-rule>'), [
    '--overwrite',
  ]);
  await curateTopic(repo, reply('ops/oncall', 'On call', '<bv-rule severity="must">Page the on-call engineer.</bv-rule>'));
  // What the repository's ref watch delivers (run.ts subscribes it): here, by hand.
  ui.change({ repository: '', ref: 'refs/brv/heads/main', kind: 'branch', branch: 'main', from: undefined, to: 'x' });
  const after = await ui.see(/canary releases/);
  t.regex(after, /● .*curate: ops\/oncall/);
  await ui.see(/4 topics/);
});

test.serial('history: ↑ recalls, Ctrl-R searches; Ctrl-C clears the line, twice leaves', async (t) => {
  const repo = await threeTopics();
  const ui = mountApp(t, repo, { history: ['how do we deploy', '/ls ops', 'auth tokens'] });
  await ui.see(/3 topics/);
  await ui.type('\u001b[A');
  await ui.see(/› auth tokens$/m);
  await ui.type('\u001b[A');
  await ui.see(/› \/ls ops$/m);
  await ui.type(CTRL_C);
  await ui.see(/^›\s*$/m);
  // Backspaces that arrive in one read (a held key on a busy machine) each erase a character.
  await ui.type('auth tokenzz');
  await ui.see(/› auth tokenzz$/m);
  await ui.type('\u007f\u007f');
  await ui.see(/› auth token$/m);
  await ui.type(CTRL_C);
  await ui.see(/^›\s*$/m);
  // Ctrl-R and the text typed after it read before the next render: the text goes to the search.
  ui.app.stdin.write('\u0012');
  await ui.type('depx');
  await ui.see(/\(history search\) 'depx': no match/);
  // Two Backspaces read before the next render delete two characters.
  ui.app.stdin.write('\u007f');
  await ui.type('\u007f');
  await ui.see(/\(history search\) 'de': how do we deploy/);
  await ui.type('p');
  await ui.see(/\(history search\) 'dep': how do we deploy/);
  // Two Backspaces in one read, in the search too.
  await ui.type('lz');
  await ui.see(/\(history search\) 'deplz': no match/);
  await ui.type('\u007f\u007f');
  await ui.see(/\(history search\) 'dep': how do we deploy/);
  await ui.type(ENTER);
  await ui.see(/› how do we deploy$/m);
  await ui.type(CTRL_C);
  t.is(ui.exits(), 0);
  await ui.type(CTRL_C);
  await ui.see(/Press Ctrl-C again to leave\./);
  await ui.type(CTRL_C);
  t.is(ui.exits(), 1);
});

test.serial('/review <id> starts at that review; an id that is not pending is said, and all of them are shown', async (t) => {
  const repo = await threeTopics();
  for (const [path, title] of [
    ['ops/a', 'First held'],
    ['ops/b', 'Second held'],
  ] as const)
    await curateTopic(repo, reply(path, title, '<bv-rule severity="must">Held.</bv-rule>', { impact: 'high', reason: `why ${path}` }));
  const brv = await openBrv(repo);
  const tasks = (await brv.review.pending()).tasks.map((task) => ({ id: task.taskId, path: task.operations[0]!.path }));
  brv.close();
  t.is(tasks.length, 2);
  const [first, second] = tasks as [(typeof tasks)[0], (typeof tasks)[0]];
  const ui = mountApp(t, repo);
  await ui.see(/2 reviews pending/);
  await ui.type(`/review ${second.id.slice(0, 6)}`);
  await ui.type(ENTER);
  await ui.see(new RegExp(`\\(2 of 2\\)[^]*ADD ${second.path}`));
  await ui.type(ESC);
  await ui.see(/Ask a question/);
  await ui.type('/review ffffff');
  await ui.type(ENTER);
  await ui.see(/No pending review ffffff: here are all of them\./);
  await ui.see(new RegExp(`\\(1 of 2\\)[^]*ADD ${first.path}`));
  // Tab and A read together: the decision is on the review Tab moved to, not the one on screen.
  await ui.type(`${TAB}A`);
  await ui.see(new RegExp(`\\(1 of 1\\)[^]*ADD ${first.path}`));
});

test.serial('/curate: a topic from the guided template, checked as it is typed, written with Ctrl-S and opened', async (t) => {
  const repo = await threeTopics();
  const ui = mountApp(t, repo);
  await ui.see(/3 topics/);
  await ui.type('/curate ../escape');
  await ui.type(ENTER);
  await ui.see(/Curate a topic/);
  await ui.type('Rollbacks');
  await ui.type(TAB);
  await ui.type(TAB);
  await ui.type(TAB);
  await ui.type('Roll back with the previous image tag.');
  // The path is refused by the validator as it stands: said live, and Ctrl-S writes nothing.
  await ui.see(/✗ .*unsafe-path|✗ .*path/);
  await ui.type('\u0013'); // Ctrl-S
  await ui.see(/Curate a topic/);
  t.is(await showTopic(repo, 'ops/rollback.html'), undefined);
  // Back to the path: fixed, valid, written. The keys arrive together, as from a held arrow or a
  // slow terminal: each must see the field the one before it moved to.
  await ui.type('\u001b[A'.repeat(4)); // ↑ ×4 in one read
  await ui.type('\u0015'); // Ctrl-U
  await ui.type('ops/rollback');
  await ui.see(/✓ valid: Ctrl-S writes ops\/rollback/);
  await ui.type('\u0013');
  const opened = await ui.see(/Rollbacks\n═+/);
  t.regex(opened, /Rule \[must\]: Roll back with the previous image tag\./);
  t.regex(
    (await showTopic(repo, 'ops/rollback.html')) ?? '',
    /<bv-rule severity="must">Roll back with the previous image tag\.<\/bv-rule>/,
  );
  await ui.see(/4 topics/);
});

test.serial('a hostile commit (escapes, a bell, a bidi override in its subject and trailers) is drawn printable', async (t) => {
  const repo = await threeTopics();
  const ui = mountApp(t, repo);
  await ui.see(/3 topics/);
  await plantTree(
    repo,
    { 'ops/deploy.html': '<bv-topic path="ops/deploy" title="Deploys"><bv-rule id="r1">Planted.</bv-rule></bv-topic>' },
    { message: 'evil \u001b]0;pwned\u0007 \u001b[2J subject\n\nBrv-Agent: bad\u001b[31magent\u202e\n' },
  );
  ui.change({ repository: '', ref: 'refs/brv/heads/main', kind: 'branch', branch: 'main', from: undefined, to: 'x' });
  const noted = await ui.see(/● bad\uFFFD\[31magent\uFFFD: evil/);
  await ui.type('/vc log');
  await ui.type(ENTER);
  const log = await ui.see(/History/);
  for (const screen of [noted, log]) t.notRegex(screen, /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
});

test.serial('a long note or error is wrapped at the terminal width, wide characters counted, never cut', async (t) => {
  const repo = await threeTopics();
  const kept = '/tmp/brv-kept-0123456789/セキュリティ認証のトピック-security-auth-edited.html';
  const ui = mountApp(t, repo, {
    editTopic: async () => {
      throw new BrvError(
        'edit-aborted',
        `The topic still fails validation and was saved unchanged, so nothing was written. Your text is in ${kept}.`,
      );
    },
  });
  await ui.see(/3 topics/);
  await ui.type('/edit security/auth');
  await ui.type(ENTER);
  const frame = await ui.see(/nothing was written/);
  // The whole message is on screen, over as many rows as it needs (ink's test terminal is 100 columns).
  const flat = frame.replace(/\n\s*/g, ' ');
  t.true(flat.includes(`Your text is in ${kept}.`), frame);
  const { default: stringWidth } = await import('string-width');
  for (const row of frame.split('\n')) t.true(stringWidth(row) <= 100, `a row wider than the terminal: ${row}`);
  // The prompt and the status line are still there, below it.
  t.regex(frame, /edit-aborted: The topic still fails validation[^\n]*\n(.+\n)+› ?\n.*3 topics/);
});

test.serial('/rm asks first: N (or any other key) keeps the topic, y removes it', async (t) => {
  const repo = await threeTopics();
  const ui = mountApp(t, repo, { noColor: true });
  await ui.see(/3 topics/);
  await ui.type('/rm security/auth');
  await ui.type(ENTER);
  await ui.see(/Remove the topic security\/auth\? One commit, reviewable\. y removes, any other key keeps it\./);
  await ui.type('N');
  await ui.see(/Kept security\/auth: nothing was removed\./);
  t.truthy(await showTopic(repo, 'security/auth.html'), 'N keeps the topic');
  await ui.type('/rm security --recursive');
  await ui.type(ENTER);
  await ui.see(/Remove 2 topics under security\/ \(security\/auth, security\/cookies\)\?/);
  await ui.type(ESC);
  await ui.see(/Kept security: nothing was removed\./);
  t.truthy(await showTopic(repo, 'security/cookies.html'));
  await ui.type('/rm security/auth');
  await ui.type(ENTER);
  await ui.see(/Remove the topic security\/auth\?/);
  await ui.type('y');
  await ui.see(/Removed security\/auth \(commit [0-9a-f]+\)\./);
  t.is(await showTopic(repo, 'security/auth.html'), undefined);
  await ui.see(/2 topics/);
  // Nothing there: said at once, nothing asked.
  await ui.type('/rm security/nothing');
  await ui.type(ENTER);
  await ui.see(/No topic at security\/nothing/);
});
