import test from 'ava';
import {
  factConflicts,
  LINK_THRESHOLD,
  MERGE_THRESHOLD,
  relationCandidates,
  similarPairs,
  staleCandidates,
} from '../../src/models/dream/candidates.js';
import { DREAM_KINDS } from '../../src/models/dream/kinds.js';
import { scanTopic, type ScannedTopic } from '../../src/models/dream/scan.js';
import type { TopicPath } from '../../src/topic/types.js';
import { CORPUS, DUPLICATES, RELATED } from './fixtures.js';

const scan = (path: string, html: string) => scanTopic(path as TopicPath, '0'.repeat(40), html)!;
const corpus = (extra: Record<string, string> = {}) => Object.entries({ ...CORPUS, ...extra }).map(([p, h]) => scan(p, h));
const all = new Set(DREAM_KINDS);
const pairKey = (a: string, b: string) => [a, b].sort().join(' ');
const subject = (path: string) => path.split('/')[0];

test('scan: the root attributes, cited files, facts and text of a topic, entities decoded, without a parser', (t) => {
  const topic = scan(
    'api/auth',
    '<bv-topic path="api/auth" title="Auth &amp; tokens" related="@security/jwt.html,@deploy" tags="a,b">\n' +
      '  <bv-files><li><code>./src/auth.ts</code></li><li>src/db.ts (the pool)</li><li><code>https://example.com/x</code></li><li>src/*.ts</li></bv-files>\n' +
      '  <bv-fact subject="token_ttl" value="15 minutes">Tokens live 15 minutes.</bv-fact>\n' +
      '  <bv-fact subject="refresh">Refresh &lt;daily&gt;.</bv-fact>\n' +
      '</bv-topic>\n',
  );
  t.is(topic.title, 'Auth & tokens');
  t.deepEqual(topic.related, ['security/jwt', 'deploy']);
  t.deepEqual(topic.files, ['src/auth.ts', 'src/db.ts']);
  t.deepEqual(topic.facts, [
    { subject: 'token_ttl', value: '15 minutes' },
    { subject: 'refresh', value: 'Refresh <daily>.' },
  ]);
  t.regex(topic.text, /Tokens live 15 minutes/);
  t.is(scanTopic('x' as TopicPath, '0', '<p>no topic</p>'), undefined);
});

test('thresholds on the labelled fixture: duplicates merge, one subject from two angles links, different subjects do not meet', (t) => {
  const topics = corpus();
  const pairs = similarPairs(topics);
  const score = new Map(pairs.map((p) => [pairKey(topics[p.a]!.path, topics[p.b]!.path), p.score]));
  for (const [a, b] of DUPLICATES) t.true((score.get(pairKey(a, b)) ?? 0) >= MERGE_THRESHOLD, `${a} ${b}: ${score.get(pairKey(a, b))}`);
  for (const [a, b] of RELATED) {
    const s = score.get(pairKey(a, b)) ?? 0;
    t.true(s >= LINK_THRESHOLD && s < MERGE_THRESHOLD, `${a} ${b}: ${s}`);
  }
  for (const p of pairs) {
    const [a, b] = [topics[p.a]!.path, topics[p.b]!.path];
    t.is(subject(a), subject(b), `${a} and ${b} are about different things but scored ${p.score}`);
  }
});

test('merge and link candidates: duplicates are merged into the fuller topic, related pairs without a link are linked', (t) => {
  const topics = corpus();
  const found = relationCandidates(topics, similarPairs(topics), all);
  const merges = found.filter((c) => c.type === 'merge');
  t.deepEqual(merges.map((c) => pairKey(c.topics[0]!, c.topics[1]!)).sort(), DUPLICATES.map(([a, b]) => pairKey(a, b)).sort());
  for (const merge of merges) {
    t.is(merge.target, merge.topics[0]);
    const [keep, drop] = merge.topics.map((p) => topics.find((x) => x.path === p)!);
    t.true(keep!.text.length >= drop!.text.length);
  }
  const links = new Set(found.filter((c) => c.type === 'link').map((c) => pairKey(c.topics[0]!, c.topics[1]!)));
  for (const [a, b] of RELATED) t.true(links.has(pairKey(a, b)), `${a} ↔ ${b}`);
  // A duplicate pair is a merge, never also a link.
  for (const [a, b] of DUPLICATES) t.false(links.has(pairKey(a, b)));
});

test('link: a pair already linked either way is not a candidate; two topics citing the same file are', (t) => {
  const withLink = CORPUS['security/sessions']!.replace('title="Sessions"', 'title="Sessions" related="@security/jwt.html"');
  const extra = {
    'security/sessions': withLink,
    'ops/cache':
      '<bv-topic path="ops/cache" title="Cache"><bv-rule id="r1">Redis evicts with allkeys-lru.</bv-rule><bv-files><li><code>src/cache.ts</code></li></bv-files></bv-topic>',
    'perf/latency':
      '<bv-topic path="perf/latency" title="Latency budget"><bv-rule id="r1">The p99 of search stays under 80 ms on staging hardware.</bv-rule><bv-files><li><code>src/cache.ts</code></li></bv-files></bv-topic>',
  };
  const topics = corpus(extra);
  const links = relationCandidates(topics, similarPairs(topics), new Set(['link'] as const));
  t.true(links.every((c) => c.type === 'link'));
  t.false(links.some((c) => pairKey(c.topics[0]!, c.topics[1]!) === pairKey('security/jwt', 'security/sessions')));
  const file = links.find((c) => pairKey(c.topics[0]!, c.topics[1]!) === pairKey('ops/cache', 'perf/latency'));
  t.truthy(file);
  t.regex(file!.why, /both cite src\/cache\.ts/);
});

test('synthesize: three connected topics in a folder without an overview; none once an overview exists or links them all', (t) => {
  const kinds = new Set(['synthesize'] as const);
  const topics = corpus();
  const clusters = relationCandidates(topics, similarPairs(topics), kinds);
  const deploy = clusters.find((c) => c.folder === 'deploy');
  t.truthy(deploy);
  t.deepEqual([...deploy!.topics].sort(), ['deploy/canary', 'deploy/rollback', 'deploy/rollbacks']);
  t.is(deploy!.target, 'deploy/overview');
  const overview = '<bv-topic path="deploy/overview" title="Deploys"><bv-rule id="r1">How we ship.</bv-rule></bv-topic>';
  const withOverview = corpus({ 'deploy/overview': overview });
  t.false(relationCandidates(withOverview, similarPairs(withOverview), kinds).some((c) => c.folder === 'deploy'));
  const hub = CORPUS['deploy/canary']!.replace(
    'title="Canary releases"',
    'title="Canary releases" related="@deploy/rollback.html,@deploy/rollbacks.html"',
  );
  const withHub = corpus({ 'deploy/canary': hub });
  t.false(relationCandidates(withHub, similarPairs(withHub), kinds).some((c) => c.folder === 'deploy'));
});

test('stale: of two topics stating one subject differently, the older one is superseded; a tie decides nothing', (t) => {
  const fact = (path: string, subject: string, value: string) =>
    scan(path, `<bv-topic path="${path}" title="t"><bv-fact subject="${subject}" value="${value}">x</bv-fact></bv-topic>`);
  const topics: ScannedTopic[] = [
    fact('a/old', 'token_ttl', '15 minutes'),
    fact('b/new', 'Token TTL', '30 minutes'),
    fact('c/same', 'token-ttl', '30 minutes'),
    fact('d/other', 'region', 'eu-west-1'),
  ];
  const conflicts = factConflicts(topics);
  t.is(conflicts.length, 1);
  const stale = staleCandidates(
    conflicts,
    new Map([
      ['b/new', 0],
      ['c/same', 1],
      ['a/old', 2],
    ]),
  );
  t.deepEqual(
    stale.map((c) => c.topics),
    [['a/old', 'b/new']],
  );
  t.regex(stale[0]!.why, /a\/old says "15 minutes".*b\/new says "30 minutes"/);
  t.deepEqual(
    staleCandidates(
      conflicts,
      new Map([
        ['b/new', 0],
        ['a/old', 0],
      ]),
    ),
    [],
  );
});
