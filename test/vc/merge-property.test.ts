import test from 'ava';
import fc from 'fast-check';
import { writeTopic } from '../../src/curate/write-topic.js';
import { GitRepository } from '../../src/git/repository.js';
import { ContextStore } from '../../src/store/context-store.js';
import { validateTopicHtml } from '../../src/topic/index.js';
import { mergeIntoBranch } from '../../src/vc/merge.js';
import { cleanup, makeRepo } from '../helpers/repo.js';
import { testProcesses } from '../helpers/processes.js';

/**
 * Random concurrent edits on two brv branches, then a merge through the real git plumbing: no edit
 * may be lost and every merged topic must validate. A model of each topic (section id → text) on
 * each branch says what the merge must contain.
 */
type Sections = Map<string, string>;
type Model = Map<string, Sections>; // topic path -> sections

const TOPICS = ['k/alpha', 'k/beta', 'k/gamma'];

const edit = fc.oneof(
  fc.record({ kind: fc.constant('set' as const), topic: fc.constantFrom(...TOPICS), section: fc.constantFrom('r1', 'r2', 'r3', 'r4') }),
  fc.record({ kind: fc.constant('drop-section' as const), topic: fc.constantFrom(...TOPICS), section: fc.constantFrom('r1', 'r2', 'r3') }),
  fc.record({ kind: fc.constant('delete-topic' as const), topic: fc.constantFrom(...TOPICS) }),
);
type Edit = typeof edit extends fc.Arbitrary<infer T> ? T : never;

function render(path: string, sections: Sections): string {
  const body = [...sections].map(([id, text]) => `<bv-rule id="${id}">${text}</bv-rule>`).join('');
  return `<bv-topic path="${path}" title="${path}">${body}</bv-topic>`;
}

function clone(model: Model): Model {
  return new Map([...model].map(([k, v]) => [k, new Map(v)]));
}

let counter = 0;

async function apply(store: ContextStore, branch: string, model: Model, e: Edit, touched: Set<string>): Promise<void> {
  const sections = model.get(e.topic);
  if (e.kind === 'delete-topic') {
    if (!sections) return;
    model.delete(e.topic);
    await store.commit(branch, async () => ({
      write: { edits: [{ path: `${e.topic}.html`, remove: true }], subject: `delete ${e.topic}`, meta: { op: 'delete', type: 'DELETE' } },
      result: null,
    }));
    touched.add(e.topic);
    return;
  }
  const next: Sections = new Map(sections ?? []);
  if (e.kind === 'set') next.set(e.section, `text-${branch}-${++counter}`);
  else if (!next.delete(e.section) || next.size === 0) return;
  model.set(e.topic, next);
  touched.add(e.topic);
  const result = await writeTopic(store, render(e.topic, next), undefined, { branch, overwrite: true });
  if (!result.ok) throw new Error(JSON.stringify(result.errors));
}

test('random edits on two branches merge with no edit lost and every topic valid', async (t) => {
  await fc.assert(
    fc.asyncProperty(
      fc.array(edit, { minLength: 1, maxLength: 5 }),
      fc.array(edit, { minLength: 1, maxLength: 5 }),
      async (oursEdits, theirsEdits) => {
        const dir = await makeRepo();
        const repo = await GitRepository.open(dir, testProcesses());
        try {
          await repo.requireModernGit();
          const store = new ContextStore(repo, async () => ({ enabled: true, gate: false }));
          const base: Model = new Map(
            TOPICS.map((p) => [
              p,
              new Map([
                ['r1', `${p} one`],
                ['r2', `${p} two`],
                ['r3', `${p} three`],
              ]),
            ]),
          );
          for (const [path, sections] of base)
            await writeTopic(store, render(path, sections), undefined, { branch: 'main', overwrite: true });
          const baseTip = (await store.snapshot('main')).commit!.oid;
          await store.createBranch('feature', baseTip);

          const ours = clone(base);
          const theirs = clone(base);
          const oursTouched = new Set<string>();
          const theirsTouched = new Set<string>();
          // Equal first edits make equal commits (same parent, tree, message and pinned date): that
          // shared history is the merge base's, so a later delete on one side rightly wins over it.
          // Not a "set": it writes a text naming its branch, so the two sides' commits differ.
          let shared = 0;
          while (
            shared < Math.min(oursEdits.length, theirsEdits.length) &&
            oursEdits[shared]!.kind !== 'set' &&
            JSON.stringify(oursEdits[shared]) === JSON.stringify(theirsEdits[shared])
          )
            shared++;
          for (const [i, e] of oursEdits.entries()) await apply(store, 'main', ours, e, i < shared ? new Set() : oursTouched);
          for (const [i, e] of theirsEdits.entries()) await apply(store, 'feature', theirs, e, i < shared ? new Set() : theirsTouched);

          const theirsTip = (await store.snapshot('feature')).commit!.oid;
          await mergeIntoBranch(store, 'main', theirsTip, { subject: 'merge feature', theirsLabel: 'feature' });
          const merged = await store.snapshot('main');
          const files = await store.listFiles(merged);

          for (const file of files.filter((f) => f.endsWith('.html'))) {
            const html = (await store.readFile(merged, file))!.toString('utf8');
            const validation = validateTopicHtml(html);
            if (!validation.ok) throw new Error(`${file} does not validate: ${JSON.stringify(validation.errors)}`);
            if (!html.includes(`path="${file.replace(/\.html$/, '')}"`))
              throw new Error(`${file} has a path attribute that does not match`);
          }
          // Every text a side wrote (and still has) survives the merge.
          for (const [side, model, touched] of [
            ['ours', ours, oursTouched],
            ['theirs', theirs, theirsTouched],
          ] as const) {
            for (const topic of touched) {
              const sections = model.get(topic);
              if (!sections) continue;
              const html = (await store.readFile(merged, `${topic}.html`))?.toString('utf8');
              if (!html) throw new Error(`${side}'s edited topic ${topic} was lost`);
              for (const [, text] of sections) {
                if (text.startsWith('text-') && !html.includes(text)) throw new Error(`${side}'s edit "${text}" in ${topic} was lost`);
              }
            }
          }
          // A topic deleted on one side and untouched on the other is gone.
          for (const topic of TOPICS) {
            const deletedByOne = (!ours.has(topic) && !theirsTouched.has(topic)) || (!theirs.has(topic) && !oursTouched.has(topic));
            if (deletedByOne && files.includes(`${topic}.html`)) throw new Error(`${topic} was deleted on one side only but survived`);
          }
        } catch (error) {
          t.log(`${(error as Error).message}\nours: ${JSON.stringify(oursEdits)}\ntheirs: ${JSON.stringify(theirsEdits)}`);
          throw error;
        } finally {
          repo.close();
          await cleanup(dir);
        }
      },
    ),
    { numRuns: 15, verbose: 1, ...(process.env.FC_SEED ? { seed: Number(process.env.FC_SEED), path: process.env.FC_PATH } : {}) },
  );
  t.pass();
});
