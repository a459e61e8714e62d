import test from 'ava';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mergeTopicHtml, renderTopicMarkdown, validateTopicHtml, type TopicMergeResult } from '../../src/topic/index.js';
import { flatText } from '../../src/topic/hast.js';
import { htmlFixtures } from './fixtures.js';

const LABELS = { ours: 'main', theirs: 'feature' };

function canonical(html: string): string {
  const result = validateTopicHtml(html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 1));
  return result.topic.canonicalHtml;
}

/** The merged topic, checked to be valid and canonical. */
function topicOf(result: TopicMergeResult) {
  const validation = validateTopicHtml(result.html);
  if (!validation.ok) throw new Error(`${JSON.stringify(validation.errors, null, 1)}\n${result.html}`);
  if (validation.topic.canonicalHtml !== result.html) throw new Error(`not canonical:\n${result.html}`);
  return validation.topic;
}

const topic = (body: string, attributes = 'tags="a,b"') => `<bv-topic path="security/auth" title="Auth" ${attributes}>${body}</bv-topic>`;
const REASON = '<bv-reason>Why we care.</bv-reason>';
const RULE = '<bv-rule id="r-1" severity="must">Return 401.</bv-rule>';
const FACT = '<bv-fact subject="ttl">Tokens live 15 minutes.</bv-fact>';
const BASE = topic(REASON + RULE + FACT);

test('identities: merge(b, x, x), merge(b, b, x) and merge(b, x, b) are canonical(x)', (t) => {
  const fixtures = htmlFixtures('valid').map((f) => f.html);
  for (const x of fixtures) {
    for (const b of [undefined, BASE, ...fixtures]) {
      const expected = { html: canonical(x), conflicted: false, conflicts: [] };
      t.deepEqual(mergeTopicHtml(b, x, x, LABELS), expected);
      if (b === undefined) continue;
      t.deepEqual(mergeTopicHtml(b, b, x, LABELS), expected);
      t.deepEqual(mergeTopicHtml(b, x, b, LABELS), expected);
    }
  }
});

test('disjoint edits are both kept, without conflict', (t) => {
  const ours = topic(REASON + RULE.replace('401', '401, never 403') + FACT);
  const theirs = topic(REASON.replace('Why', 'Why, really,') + RULE + FACT + '<bv-decision id="d-1"><p>Use RS256.</p></bv-decision>');
  const result = mergeTopicHtml(BASE, ours, theirs, LABELS);
  t.false(result.conflicted);
  t.deepEqual(result.conflicts, []);
  t.is(
    result.html,
    canonical(
      topic(
        '<bv-reason>Why, really, we care.</bv-reason><bv-rule id="r-1" severity="must">Return 401, never 403.</bv-rule>' +
          FACT +
          '<bv-decision id="d-1"><p>Use RS256.</p></bv-decision>',
      ),
    ),
  );
});

test('the same change on both sides is taken once', (t) => {
  const both = topic(REASON + RULE.replace('401', '418') + FACT);
  const result = mergeTopicHtml(BASE, both, topic(REASON + RULE.replace('401', '418') + FACT, 'tags="b,a"'), LABELS);
  t.false(result.conflicted);
  t.is(result.html, canonical(both));
});

test('an overlapping edit keeps both versions, marked, and validates', (t) => {
  const ours = topic(REASON + RULE.replace('401', '401, always') + FACT);
  const theirs = topic(REASON + RULE.replace('401', '403') + FACT);
  const result = mergeTopicHtml(BASE, ours, theirs, LABELS);
  t.true(result.conflicted);
  t.deepEqual(
    result.conflicts.map((c) => c.section),
    ['bv-rule#r-1'],
  );
  const text = flatText(topicOf(result).root);
  t.true(text.includes('Merge conflict, ours (main): Return 401, always.'), text);
  t.true(text.includes('Merge conflict, theirs (feature): Return 403.'), text);
  t.regex(result.html, /<bv-rule id="r-1-theirs" severity="must">/);
  t.regex(result.html, /^<bv-topic [^>]*>\n {2}<bv-highlights><h3>Merge conflict<\/h3>/);
});

test('the rendered markdown of a conflicted merge shows both versions and the note', (t) => {
  const structure = (text: string) => `<bv-structure><h3>Modules</h3><p>${text}</p></bv-structure>`;
  const base = topic(structure('jwt.ts') + '<bv-pattern>^Bearer</bv-pattern>' + RULE);
  const ours = topic(structure('jwt.ts signs') + '<bv-pattern>^Bearer\\s</bv-pattern>' + RULE.replace('401', '401!'));
  const theirs = topic(structure('jwt.ts verifies') + '<bv-pattern>^bearer</bv-pattern>' + RULE.replace('401', '403'));
  const result = mergeTopicHtml(base, ours, theirs, LABELS);
  t.is(result.conflicts.length, 3);
  const markdown = renderTopicMarkdown(topicOf(result).root);
  for (const expected of [
    '### Merge conflict',
    '- `bv-structure "Modules"`: changed differently on both sides',
    '**Merge conflict, ours (main):**\n\njwt.ts signs',
    '**Merge conflict, theirs (feature):**\n\njwt.ts verifies',
    '- **Pattern** (description=[Merge conflict, ours (main)\\]): `^Bearer\\s`',
    '- **Pattern** (description=[Merge conflict, theirs (feature)\\]): `^bearer`',
    '- **Rule** [must] (r-1): **Merge conflict, ours (main):** Return 401!',
    '- **Rule** [must] (r-1-theirs): **Merge conflict, theirs (feature):** Return 403.',
  ]) {
    t.true(markdown.includes(expected), `${expected}\n---\n${markdown}`);
  }
});

test('modified on one side and deleted on the other keeps the modification', (t) => {
  const modified = topic(REASON + RULE.replace('401', '401 with a body') + FACT);
  const deleted = topic(REASON + FACT);
  for (const [ours, theirs] of [
    [modified, deleted],
    [deleted, modified],
  ] as const) {
    const result = mergeTopicHtml(BASE, ours, theirs, LABELS);
    t.false(result.conflicted);
    t.is(result.html, canonical(modified));
  }
});

test('deleted on one side and unchanged on the other is deleted', (t) => {
  const result = mergeTopicHtml(BASE, topic(REASON + FACT + '<bv-task>New task</bv-task>'), topic(REASON + RULE), LABELS);
  t.is(result.html, canonical(topic(REASON + '<bv-task>New task</bv-task>')));
});

test('tags, keywords and related merge as sets; removals on one side hold', (t) => {
  const base = topic(REASON, 'tags="a,b,c" keywords="k1" related="@x/y.html"');
  const ours = topic(REASON, 'tags="a,b,c,d" keywords="k1,k2" related="@x/y.html,@z"');
  const theirs = topic(REASON, 'tags="c,a,e" keywords="" related="@x/y.html"');
  const result = mergeTopicHtml(base, ours, theirs, LABELS);
  const merged = topicOf(result);
  t.false(result.conflicted);
  t.deepEqual(merged.tags, ['a', 'c', 'd', 'e']);
  t.deepEqual(merged.keywords, ['k2']);
  t.deepEqual(
    merged.related.map((r) => r.ref),
    ['@x/y.html', '@z'],
  );
});

test('title and summary merge three-way; a double change keeps ours and names theirs', (t) => {
  const base = '<bv-topic path="a/b" title="T" summary="S"><bv-reason>R</bv-reason></bv-topic>';
  const clean = mergeTopicHtml(base, base.replace('title="T"', 'title="T2"'), base.replace('summary="S"', 'summary="S2"'), LABELS);
  t.false(clean.conflicted);
  t.is(clean.html, canonical('<bv-topic path="a/b" title="T2" summary="S2"><bv-reason>R</bv-reason></bv-topic>'));

  const result = mergeTopicHtml(base, base.replace('title="T"', 'title="Ours"'), base.replace('title="T"', 'title="Theirs"'), LABELS);
  t.true(result.conflicted);
  t.deepEqual(result.conflicts, [
    { section: 'title', reason: 'changed on both sides; kept ours (main) "Ours", theirs (feature) has "Theirs"' },
  ]);
  const merged = topicOf(result);
  t.is(merged.title, 'Ours');
  t.true(renderTopicMarkdown(merged.root).includes('theirs (feature) has "Theirs"'));
});

test('add/add without a base: equal additions merge cleanly, different ones conflict', (t) => {
  const ours = topic(REASON + RULE, 'tags="a"');
  const theirs = topic(REASON + FACT, 'tags="b"');
  const clean = mergeTopicHtml(undefined, ours, theirs, LABELS);
  t.false(clean.conflicted);
  t.is(clean.html, canonical(topic(REASON + FACT + RULE, 'tags="a,b"'))); // theirs' fact follows its predecessor

  const result = mergeTopicHtml(undefined, ours, topic(REASON.replace('Why', 'How') + RULE), LABELS);
  t.true(result.conflicted);
  t.deepEqual(result.conflicts, [
    {
      section: 'bv-reason',
      reason: 'added on both sides with different content; both versions are kept, marked ours (main) and theirs (feature)',
    },
  ]);
  const text = flatText(topicOf(result).root);
  t.true(text.includes('Merge conflict, ours (main): Why we care.'));
  t.true(text.includes('Merge conflict, theirs (feature): How we care.'));
});

test("theirs' new sections go after their predecessor; order otherwise follows ours", (t) => {
  const base = topic('<bv-rule id="a">A</bv-rule><bv-rule id="b">B</bv-rule><bv-rule id="c">C</bv-rule>');
  const ours = topic('<bv-rule id="c">C</bv-rule><bv-rule id="a">A</bv-rule><bv-rule id="b">B</bv-rule><bv-rule id="o">O</bv-rule>');
  const theirs = topic(
    '<bv-rule id="t0">T0</bv-rule><bv-rule id="a">A</bv-rule><bv-rule id="t1">T1</bv-rule><bv-rule id="t2">T2</bv-rule><bv-rule id="b">B</bv-rule><bv-rule id="c">C</bv-rule>',
  );
  const ids = [...topicOf(mergeTopicHtml(base, ours, theirs, LABELS)).root.children].flatMap((c) =>
    c.type === 'element' ? [String(c.properties['id'])] : [],
  );
  t.deepEqual(ids, ['t0', 'c', 'a', 't1', 't2', 'b', 'o']);
});

test('sections without ids are keyed by heading, fact subject, or occurrence', (t) => {
  const s = (heading: string, text: string) => `<bv-structure><h3>${heading}</h3><p>${text}</p></bv-structure>`;
  const base = topic(s('One', '1') + s('Two', '2') + '<bv-fact subject="x">X</bv-fact><bv-fact>Y</bv-fact>');
  // ours drops "One" and edits fact y; theirs edits "Two" and fact x
  const ours = topic(s('Two', '2') + '<bv-fact subject="x">X</bv-fact><bv-fact>Y!</bv-fact>');
  const theirs = topic(s('One', '1') + s('Two', '2!') + '<bv-fact subject="x">X!</bv-fact><bv-fact>Y</bv-fact>');
  const result = mergeTopicHtml(base, ours, theirs, LABELS);
  t.false(result.conflicted);
  t.is(result.html, canonical(topic(s('Two', '2!') + '<bv-fact subject="x">X!</bv-fact><bv-fact>Y!</bv-fact>')));
});

test('a conflict copy never reuses an id', (t) => {
  const base = topic('<bv-decision id="d"><p>base</p></bv-decision>');
  const ours = topic('<bv-decision id="d"><p>ours</p></bv-decision><bv-decision id="d-theirs"><p>older conflict</p></bv-decision>');
  const theirs = topic('<bv-decision id="d"><p>theirs</p></bv-decision>');
  const result = mergeTopicHtml(base, ours, theirs, LABELS);
  t.regex(result.html, /<bv-decision id="d-theirs-2"><p><strong>Merge conflict, theirs \(feature\):<\/strong><\/p><p>theirs<\/p>/);
  topicOf(result);
});

test('a side that is not a valid topic never makes the merge throw; its HTML is kept as text', (t) => {
  const invalid = [
    '<bv-topic path="security/auth" title="Auth"><script>alert(1)</script><bv-reason>kept \u0001 text</bv-reason></bv-topic>',
    'not html at all',
    '',
    '<bv-topic path="../etc" title="x"><bv-nope>?</bv-nope></bv-topic>',
    '<div>'.repeat(500),
    '<bv-topic path="a/b" title="T"><bv-reason>x</bv-reason></bv-topic><bv-topic path="c" title="C"></bv-topic>',
  ];
  const ours = topic(REASON + RULE.replace('401', '401!') + FACT);
  for (const bad of invalid) {
    for (const [o, th] of [
      [ours, bad],
      [bad, ours],
      [bad, bad],
    ] as const) {
      for (const base of [undefined, BASE, bad]) {
        const result = mergeTopicHtml(base, o, th, LABELS, 'fallback/path');
        const merged = topicOf(result);
        if (base === bad && (o === bad) !== (th === bad)) {
          t.false(result.conflicted); // the invalid side did not change: the valid one is taken
          continue;
        }
        t.true(result.conflicted, `${bad} ${o === bad} ${th === bad}`);
        t.true(result.conflicts.every((c) => c.section === '(whole topic)'));
        if (o === ours || th === ours) t.true(flatText(merged.root).includes('Return 401!.'));
        // ours' path if it has a usable one, else theirs', else base's, else the fallback
        const pathOf = (html: string | undefined) => html?.match(/path="([^".]+)"/)?.[1];
        t.is(String(merged.path), pathOf(o) ?? pathOf(th) ?? pathOf(base) ?? 'fallback/path');
        if (bad.includes('kept')) t.true(flatText(merged.root).includes('<bv-reason>kept \ufffd text</bv-reason>'));
      }
    }
  }
});

test('an invalid base still serves for comparison', (t) => {
  const base = BASE.replace('title="Auth"', 'title="Auth" importance="9"');
  t.false(validateTopicHtml(base).ok);
  const result = mergeTopicHtml(base, topic(REASON + RULE.replace('401', '418') + FACT), topic(REASON + RULE), LABELS);
  t.false(result.conflicted);
  t.is(result.html, canonical(topic(REASON + RULE.replace('401', '418'))));
});

test('a merge that would exceed the size limit keeps ours and says so', (t) => {
  const big = (word: string) => topic(`<bv-rule id="r-1">${`${word} `.repeat(30_000)}</bv-rule>`);
  const result = mergeTopicHtml(topic(RULE), big('ours'), big('theirs'), LABELS);
  t.true(result.conflicted);
  t.deepEqual(
    result.conflicts.map((c) => c.section),
    ['(whole topic)'],
  );
  t.regex(result.conflicts[0]!.reason, /too large/);
  t.true(flatText(topicOf(result).root).includes('ours ours'));
});

test('labels are cleaned and cannot break the topic', (t) => {
  const ours = topic(RULE.replace('401', '1'));
  const theirs = topic(RULE.replace('401', '2'));
  const result = mergeTopicHtml(topic(RULE), ours, theirs, { ours: '<b>x</b>\u0000', theirs: '' });
  t.true(flatText(topicOf(result).root).includes('Merge conflict, ours (<b>x</b>\ufffd): Return 1.'));
  t.true(flatText(topicOf(result).root).includes('Merge conflict, theirs: Return 2.'));
});

// ---- property test -------------------------------------------------------------------------------

/** Repeatable kinds get a stable key (id, fact subject, heading); the others occur at most once. */
const KEYED = ['bv-rule', 'bv-decision', 'bv-bug', 'bv-fix', 'bv-fact', 'bv-structure'] as const;
const SINGLE = [
  'bv-reason',
  'bv-task',
  'bv-flow',
  'bv-author',
  'bv-highlights',
  'bv-changes',
  'bv-examples',
  'bv-pattern',
  'bv-diagram',
] as const;
const KINDS = [...KEYED, ...SINGLE];
const TAGS = ['a', 'b', 'c', 'd', 'e'];

interface Section {
  readonly key: string;
  readonly tag: string;
  /** Unique per version of a section, e.g. "[o3]", so presence in the merged text is unambiguous. */
  readonly token: string;
  readonly flavor: string;
}
interface Model {
  readonly title: string;
  readonly summary: string;
  readonly tags: string[];
  readonly sections: Section[];
}
type Op =
  | { op: 'add'; tag: string; at: number; flavor: string }
  | { op: 'delete'; at: number }
  | { op: 'modify'; at: number; flavor: string }
  | { op: 'tag'; tag: string }
  | { op: 'title' }
  | { op: 'summary' };

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');

function sectionHtml(s: Section): string {
  const text = esc(`${s.token} ${s.flavor}`);
  if (s.tag === 'bv-fact') return `<bv-fact subject="${s.key}">${text}</bv-fact>`;
  if (s.tag === 'bv-structure') return `<bv-structure><h3>${s.key}</h3><p>${text}</p></bv-structure>`;
  if (['bv-rule', 'bv-decision', 'bv-bug', 'bv-fix'].includes(s.tag)) {
    const body = s.tag === 'bv-rule' ? text : `<p>${text}</p>`;
    return `<${s.tag} id="${s.key}">${body}</${s.tag}>`;
  }
  if (['bv-reason', 'bv-highlights', 'bv-examples'].includes(s.tag)) return `<${s.tag}><p>${text}</p></${s.tag}>`;
  if (s.tag === 'bv-changes') return `<bv-changes><li>${text}</li></bv-changes>`;
  return `<${s.tag}>${text}</${s.tag}>`;
}

function modelHtml(m: Model): string {
  const summary = m.summary ? ` summary="${m.summary}"` : '';
  return `<bv-topic path="prop/merge" title="${m.title}"${summary} tags="${m.tags.join(',')}">\n${m.sections.map(sectionHtml).join('\n')}\n</bv-topic>`;
}

function keyOf(tag: string, name: string): string {
  return (KEYED as readonly string[]).includes(tag) ? name : tag;
}

/** Applies edits; `side` makes new keys and texts unique to this sequence ("s" for edits shared by both sides). */
function applyOps(model: Model, ops: Op[], side: string): Model {
  const sections = [...model.sections];
  let { title, summary, tags } = model;
  ops.forEach((op, i) => {
    const token = `[${side}${i}]`;
    const at = 'at' in op && sections.length > 0 ? op.at % sections.length : -1;
    if (op.op === 'add') {
      const key = keyOf(op.tag, `${side}${i}`);
      if (!sections.some((s) => s.key === key))
        sections.splice(op.at % (sections.length + 1), 0, { key, tag: op.tag, token, flavor: op.flavor });
    } else if (op.op === 'delete' && at >= 0) {
      sections.splice(at, 1);
    } else if (op.op === 'modify' && at >= 0) {
      sections[at] = { ...sections[at]!, token, flavor: op.flavor };
    } else if (op.op === 'tag') {
      tags = tags.includes(op.tag) ? tags.filter((t) => t !== op.tag) : [...tags, op.tag];
    } else if (op.op === 'title') {
      title = `Title ${side}${i}`;
    } else if (op.op === 'summary') {
      summary = summary ? '' : `Summary ${side}${i}`;
    }
  });
  return { title, summary, tags, sections };
}

const flavor = fc.string({ unit: fc.constantFrom('x', 'y', ' ', '<', '>', '&', '"', "'", 'é', '→', '\n'), maxLength: 6 });
const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 3, arbitrary: fc.record({ op: fc.constant('add' as const), tag: fc.constantFrom(...KINDS), at: fc.nat(), flavor }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete' as const), at: fc.nat() }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('modify' as const), at: fc.nat(), flavor }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('tag' as const), tag: fc.constantFrom(...TAGS) }) },
  { weight: 1, arbitrary: fc.constant({ op: 'title' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'summary' as const }) },
);
const scenario = fc.record({
  base: fc.array(opArb, { maxLength: 10 }),
  shared: fc.array(opArb, { maxLength: 3 }),
  ours: fc.array(opArb, { maxLength: 6 }),
  theirs: fc.array(opArb, { maxLength: 6 }),
});

test('property: valid, no edit lost, deletions hold, tags are a base-aware union, conflicted iff both changed', (t) => {
  fc.assert(
    fc.property(scenario, (ops) => {
      const base = applyOps({ title: 'Base', summary: '', tags: [], sections: [] }, ops.base, 'b');
      const shared = applyOps(base, ops.shared, 's');
      const [ours, theirs] = [applyOps(shared, ops.ours, 'o'), applyOps(shared, ops.theirs, 't')];
      const [b, o, th] = [base, ours, theirs].map(modelHtml) as [string, string, string];
      const result = mergeTopicHtml(b, o, th, LABELS);
      const merged = topicOf(result);
      const text = flatText(merged.root);
      const present = (s: Section) => text.includes(s.token);

      const byKey = (m: Model) => new Map(m.sections.map((s) => [s.key, s]));
      const [bm, om, tm] = [byKey(base), byKey(ours), byKey(theirs)];
      const same = (x?: Section, y?: Section) => (x && sectionHtml(x)) === (y && sectionHtml(y));
      let conflicts = 0;
      for (const key of new Set([...bm.keys(), ...om.keys(), ...tm.keys()])) {
        const [bs, os, ts] = [bm.get(key), om.get(key), tm.get(key)];
        // every section added or changed on either side is kept
        if (os && !same(os, bs) && !present(os)) return false;
        if (ts && !same(ts, bs) && !present(ts)) return false;
        if (bs && same(os, bs) && same(ts, bs) && !present(bs)) return false;
        // deleted on one side, untouched on the other: gone
        if (bs && ((!os && (same(ts, bs) || !ts)) || (!ts && same(os, bs))) && present(bs)) return false;
        if (os && ts && !same(os, ts) && !same(os, bs) && !same(ts, bs)) conflicts++;
      }
      const scalarConflict = (x: string, y: string, z: string) => (y !== z && y !== x && z !== x ? 1 : 0);
      conflicts += scalarConflict(base.title, ours.title, theirs.title) + scalarConflict(base.summary, ours.summary, theirs.summary);
      if (result.conflicted !== conflicts > 0 || result.conflicts.length !== conflicts) return false;

      const tags = new Set(merged.tags);
      for (const tag of TAGS) {
        const expected =
          (ours.tags.includes(tag) && theirs.tags.includes(tag)) ||
          (!base.tags.includes(tag) && [...ours.tags, ...theirs.tags].includes(tag));
        if (tags.has(tag) !== expected) return false;
      }
      const title = ours.title === base.title ? theirs.title : ours.title;
      if (merged.path !== 'prop/merge' || merged.title !== title) return false;
      // the identities hold on generated topics too
      const clean = (x: string) => ({ html: canonical(x), conflicted: false, conflicts: [] });
      assert.deepStrictEqual(mergeTopicHtml(b, o, o, LABELS), clean(o));
      assert.deepStrictEqual(mergeTopicHtml(b, b, th, LABELS), clean(th));
      assert.deepStrictEqual(mergeTopicHtml(b, o, b, LABELS), clean(o));
      return true;
    }),
    { numRuns: 300 },
  );
  t.pass();
});

test('data-*, lang, dir and class on <bv-topic> survive a section merge, each side’s change kept', (t) => {
  const base = topic(REASON + RULE, 'data-owner="ops" lang="en"');
  const ours = topic('<bv-reason>Why we care now.</bv-reason>' + RULE, 'data-owner="platform" lang="en"');
  const theirs = topic(
    REASON + '<bv-rule id="r-1" severity="must">Return 401 always.</bv-rule>',
    'data-owner="ops" lang="en" data-team="auth"',
  );
  const merged = topicOf(mergeTopicHtml(base, ours, theirs, LABELS));
  t.true(
    merged.canonicalHtml.startsWith('<bv-topic path="security/auth" title="Auth" data-owner="platform" data-team="auth" lang="en">'),
    merged.canonicalHtml,
  );
});
