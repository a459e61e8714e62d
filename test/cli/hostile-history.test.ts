import test from 'ava';
import { plantTree } from '../helpers/plant.js';
import { brv, brvJson, cleanup, curateTopic, makeRepo, reply } from '../helpers/repo.js';

// A commit brv did not write (a teammate's push, plumbing) whose message, trailers and file names carry
// terminal escapes, a bell and a bidirectional override: nothing of them reaches the terminal.
const HOSTILE_MESSAGE =
  'evil \u001b]0;pwned\u0007 \u001b[2J subject\n\nBrv-Agent: bad\u001b[31magent\nBrv-Reason: \u202eesrever\u009b2J\nBrv-Op: curate\n';

test('history read back from git is printable: subjects, trailers and paths of a hostile commit, in every command that shows them', async (t) => {
  const repo = await makeRepo();
  t.teardown(() => cleanup(repo));
  await curateTopic(repo, reply('ops/deploy', 'Deploys'));
  await plantTree(
    repo,
    {
      'ops/deploy.html': '<bv-topic path="ops/deploy" title="Deploys"><bv-rule id="r1">Planted.</bv-rule></bv-topic>',
      'ops/evil\u001b[2Jname.html': 'not a topic',
    },
    { message: HOSTILE_MESSAGE },
  );
  const unprintable = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/;
  for (const args of [
    ['vc', 'log'],
    ['curate', 'view'],
    ['vc', 'show'],
    ['vc', 'diff'],
  ]) {
    const run = await brv(repo, args);
    t.is(run.exitCode, 0, `${args.join(' ')}: ${run.stderr}`);
    t.notRegex(run.stdout, unprintable, args.join(' '));
  }
  const shown = (await brv(repo, ['vc', 'log'])).stdout;
  t.regex(shown, /evil \uFFFD\]0;pwned\uFFFD \uFFFD\[2J subject/, 'the text is kept, its escapes made visible (the check can fail)');
  const json = await brvJson(repo, ['vc', 'log']);
  const newest = json.json?.data.entries?.[0] ?? json.json?.data[0];
  t.notRegex(JSON.stringify(newest), /\\u001b|\\u0007|\\u009b|\u202e/, JSON.stringify(newest));
  t.is(newest.meta.agent, 'bad\uFFFD[31magent');
});
