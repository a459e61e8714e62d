import test from 'ava';
import fc from 'fast-check';
import type { Element } from 'hast';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { attributesOf, elementsIn, flatText } from '../../src/topic/hast.js';
import { convertLegacyMarkdown } from '../../src/byterover/legacy-markdown.js';
import { MAX_TOPIC_BYTES, renderTopicMarkdown, validateTopicHtml } from '../../src/topic/index.js';

const TREE = fileURLToPath(new URL('../../fixtures/byterover/.brv/context-tree/', import.meta.url));
const BAD = fileURLToPath(new URL('../../fixtures/byterover-bad/', import.meta.url));

/** The legacy Markdown topics of the fixture tree (derived and archived files left out). */
function markdownFixtures(): string[] {
  return (readdirSync(TREE, { recursive: true }) as string[])
    .map((name) => name.split(path.sep).join('/'))
    .filter((name) => name.endsWith('.md') && !/(^|\/)(_index\.md|[^/]+\.(abstract|overview)\.md)$/.test(name))
    .filter((name) => !name.startsWith('_archived/') && !name.startsWith('.'))
    .sort();
}

function convert(text: string | Uint8Array, relative = 'notes/topic.md') {
  const result = convertLegacyMarkdown(text, relative);
  if (!result.ok) throw new Error(`${result.kind}: ${result.message}`);
  return result;
}

function topicOf(html: string): Element {
  const result = validateTopicHtml(html);
  if (!result.ok) throw new Error(JSON.stringify(result.errors, null, 1));
  return result.topic.root;
}

/** Top-level bv-* children as [tag, attributes, text]. */
function children(html: string): Array<[string, Record<string, string>, string]> {
  return topicOf(html)
    .children.filter((c): c is Element => c.type === 'element')
    .map((e) => [e.tagName, Object.fromEntries(attributesOf(e)), flatText(e)]);
}

const md = (frontmatter: string, body: string) => `---\n${frontmatter}\n---\n${body}`;

// Words that name sections or fields: the output says them through elements and labels instead.
const STRUCTURAL = new Set(
  'reason raw concept narrative structure dependencies highlights features rules examples diagrams facts relations task changes files flow timestamp author patterns flags md title summary tags related keywords decisions bugs fixes'.split(
    ' ',
  ),
);
const DROPPED_LINE = /^(createdAt|updatedAt|importance|recency|maturity|accessCount|updateCount):.*$/gm;
const words = (text: string) => new Set((text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STRUCTURAL.has(w)));

for (const name of markdownFixtures()) {
  test(`byterover/${name}: converts, validates, is canonical and loses no text`, (t) => {
    const source = readFileSync(path.join(TREE, name), 'utf8');
    const result = convert(source, name);
    t.is(result.path as string, name.replace(/\.md$/, ''));
    const validation = validateTopicHtml(result.html);
    if (!validation.ok) return t.fail(JSON.stringify(validation.errors));
    // Canonical: importing the output again (brv export → brv import) gives the same bytes.
    t.is(validation.topic.canonicalHtml, result.html);
    // ByteRover's file times are kept as data-* attributes (never as the bare stamps); its scores are dropped.
    t.false(/ (createdat|updatedat)=|importance|maturity/i.test(result.html));
    const rendered = words(renderTopicMarkdown(validation.topic.root));
    // A relation to a folder's generated context.md (not imported) names the folder.
    const kept = source.replace(DROPPED_LINE, '').replace(/([\w/]+)\/context\.md\b/g, '$1');
    const missing = [...words(kept)].filter((w) => !rendered.has(w));
    t.deepEqual(missing, [], `words of ${name} missing from the rendered topic`);
  });
}

test('every §1.6 section of a full legacy topic maps to its element', (t) => {
  const result = convert(readFileSync(path.join(TREE, 'auth/jwt/token_refresh.md')), 'auth/jwt/token_refresh.md');
  const root = topicOf(result.html);
  t.deepEqual(Object.fromEntries(attributesOf(root)), {
    path: 'auth/jwt/token_refresh',
    title: 'JWT token refresh',
    summary: 'Refresh tokens rotate on every use; access tokens live 15 minutes',
    tags: 'security,jwt',
    keywords: 'refresh,rotation,jti',
    related: '@security/auth/session_store.html,@auth',
    'data-createdat': '2026-03-01T10:00:00.000Z',
    'data-updatedat': '2026-04-02T08:30:00.000Z',
  });
  t.deepEqual(children(result.html), [
    ['bv-reason', {}, 'Captured after the refresh/logout race in March so the next change keeps the invariants.'],
    ['bv-task', {}, 'Document how refreshToken() rotates tokens'],
    ['bv-changes', {}, 'Refresh tokens rotate on every use Revocation list checked inside the refresh transaction'],
    ['bv-files', {}, 'src/auth/refresh.ts src/auth/revocation.ts'],
    ['bv-flow', {}, 'client -> POST /auth/refresh -> verify -> rotate -> respond'],
    ['bv-timestamp', {}, '2026-03-14'],
    ['bv-author', {}, 'auth-team'],
    ['bv-pattern', { description: 'JWT in the Authorization header', flags: 'i' }, '^Bearer\\s+([A-Za-z0-9_-]+)$'],
    ['bv-pattern', { description: 'Refresh token id' }, 'rt_[0-9a-f]{32}'],
    ['bv-structure', {}, 'The refresh endpoint lives in src/auth/refresh.ts ; it never touches cookies directly.'],
    ['bv-dependencies', {}, 'Uses jose for signing and the Redis revocation list.'],
    ['bv-highlights', {}, 'Access tokens live 15 minutes Refresh tokens live 30 days'],
    ['bv-rule', {}, 'A reused refresh token MUST revoke the whole family'],
    ['bv-rule', {}, 'Log the token id ( jti ), never the token'],
    ['bv-examples', {}, 'const pair = await refreshToken(oldToken) if (!pair) throw new Unauthorized()'],
    [
      'bv-diagram',
      { title: 'Refresh flow', type: 'mermaid' },
      'sequenceDiagram Client->>API: POST /auth/refresh API-->>Client: new token pair',
    ],
    ['bv-diagram', { type: 'ascii' }, 'client --> api --> redis'],
    ['bv-fact', { category: 'project', subject: 'access_token_ttl' }, 'Access tokens expire after 15 minutes'],
    ['bv-fact', { category: 'convention', subject: 'refresh_reuse' }, 'Reusing a refresh token revokes the whole family'],
    ['bv-fact', { category: 'preference' }, 'The team prefers short-lived tokens'],
    ['bv-fact', { subject: 'owner' }, 'Tokens are owned by the identity squad [security]'],
    ['bv-highlights', {}, 'The refresh endpoint answers 401 with WWW-Authenticate: Bearer error="invalid_token" once a token is revoked.'],
    ['bv-highlights', {}, 'curl -X POST https://api.example.com/auth/refresh -d @token.json'],
  ]);
  // Diagram bodies, code and patterns are kept verbatim (only escaped).
  t.true(result.html.includes('<bv-diagram title="Refresh flow" type="mermaid">sequenceDiagram\n  Client->>API: POST /auth/refresh\n'));
  t.true(
    result.html.includes('<code class="language-ts">const pair = await refreshToken(oldToken)\nif (!pair) throw new Unauthorized()</code>'),
  );
  t.true(result.notes.some((n) => n.includes('Kept createdAt and updatedAt as data-createdat and data-updatedat')));
  t.true(result.notes.some((n) => n.includes('"security" is not a bv-fact category')));
});

test('pre-3.7.1 topic: scoring fields dropped, Relations → related, Features → highlights, orphan sections kept', (t) => {
  const result = convert(readFileSync(path.join(TREE, 'database/postgres/connection_pool.md')), 'database/postgres/connection_pool.md');
  t.is(attributesOf(topicOf(result.html)).get('related'), '@database/postgres/migrations.html,@auth/jwt/token_refresh.html');
  t.deepEqual(children(result.html), [
    ['bv-task', {}, 'Keep connection counts under the Postgres limit'],
    ['bv-files', {}, 'infra/pgbouncer.ini'],
    ['bv-highlights', {}, 'Raw Concept Notes: the pool size was tuned during the Black Friday load test'],
    ['bv-highlights', {}, 'Transaction pooling 200 client connections, 20 server connections'],
    ['bv-rule', {}, 'Prepared statements are off: transaction pooling breaks them.'],
    ['bv-highlights', {}, 'Capacity Each API pod opens at most 10 client connections.'],
    ['bv-highlights', {}, 'Gotchas Session variables ( SET search_path ) leak between clients in transaction mode.'],
    ['bv-decision', {}, 'We chose PgBouncer over pgpool because it is simpler to operate.'],
  ]);
  const dropped = result.notes.find((n) => n.startsWith('Dropped frontmatter'));
  for (const field of ['importance', 'recency', 'maturity', 'accessCount', 'updateCount']) {
    t.true(dropped?.includes(field), field);
  }
  t.false(/createdAt|updatedAt/.test(dropped ?? ''), 'file times are kept, not dropped');
  t.true(result.notes.some((n) => n.includes('"Gotchas"')));
});

test('a file without frontmatter: title from its "# " heading, relations from its body', (t) => {
  const result = convert(readFileSync(path.join(TREE, 'auth/context.md')), 'auth/context.md');
  const attributes = attributesOf(topicOf(result.html));
  t.is(attributes.get('title'), 'Authentication');
  t.is(attributes.get('related'), '@auth/jwt/token_refresh.html');
  t.false(result.html.includes('<h1>'), 'the heading that became the title is not repeated');
  t.true(result.notes.some((n) => n.includes('no YAML frontmatter')));
});

test('snippets stay separate; unknown frontmatter, tables, images, raw HTML are kept safely', (t) => {
  const result = convert(readFileSync(path.join(TREE, 'database/postgres/migrations.md')), 'database/postgres/migrations.md');
  const kids = children(result.html);
  t.deepEqual(kids[0], ['bv-highlights', {}, 'Frontmatter author : dba-team reviewed : true']);
  t.is(kids[1]?.[2], 'Migrations run with graphile-migrate ; never edit a committed migration.');
  t.is(kids.length, 3);
  t.true(
    result.html.includes(
      '<table><thead><tr><th>env</th><th>command</th></tr></thead><tbody><tr><td>dev</td><td><code>gm watch</code></td></tr>',
    ),
  );
  t.true(result.html.includes('<img alt="schema diagram" src="docs/schema.png" title="Schema">'));
  t.true(result.html.includes('<ol><li>Write the migration in <code>current.sql</code></li>'));
  t.true(result.html.includes('<pre><code class="language-html">&lt;details>Squash old migrations yearly&lt;/details></code></pre>'));
  t.false(attributesOf(topicOf(result.html)).has('summary'), 'an empty summary is left out');
});

test('Raw Concept fields: inline fields hold text only, the rest is kept beside them', (t) => {
  const result = convert(
    md(
      'title: T',
      [
        '## Raw Concept',
        '**Task:**',
        'First line',
        'second line',
        '',
        '- a list the inline <bv-task> cannot hold',
        '',
        '**Author**: someone',
        '',
        '**Patterns:**',
        '- `a+b` (flags: gi) - pluses',
        '- not a pattern line',
        '',
        '**Timestamp:** 2026-01-01',
        '',
      ].join('\n'),
    ),
  );
  t.deepEqual(children(result.html), [
    ['bv-task', {}, 'First line second line'],
    ['bv-highlights', {}, 'Task a list the inline <bv-task> cannot hold'],
    ['bv-author', {}, 'someone'],
    ['bv-pattern', { description: 'pluses', flags: 'gi' }, 'a+b'],
    ['bv-highlights', {}, 'Patterns not a pattern line'],
    ['bv-timestamp', {}, '2026-01-01'],
  ]);
  t.true(result.notes.some((n) => n.includes('Patterns item')));
});

test('diagrams: titles, unknown languages as type="other", text kept verbatim', (t) => {
  const result = convert(
    md('title: D', '## Narrative\n### Diagrams\n**Graph**\n```dot\ndigraph { a -> b }\n```\n\n```d2\nx -> y: <&>\n```\n'),
  );
  t.deepEqual(children(result.html), [
    ['bv-diagram', { title: 'Graph', type: 'dot' }, 'digraph { a -> b }'],
    ['bv-diagram', { type: 'other' }, 'x -> y: <&>'],
  ]);
  t.true(result.html.includes('x -> y: &lt;&amp;>'));
  t.true(result.notes.some((n) => n.includes('"d2"')));
});

test('rules and facts: plain paragraphs count, nested content is kept beside them', (t) => {
  const result = convert(
    md(
      'title: R',
      '## Narrative\n### Rules\nOne rule.\n\n- Two\n- Three\n  - nested\n\n## Facts\n- **k**: v [team]\n- plain [other]\n- **bad**: x [nope]\n',
    ),
  );
  t.deepEqual(children(result.html), [
    ['bv-rule', {}, 'One rule.'],
    ['bv-rule', {}, 'Two'],
    ['bv-highlights', {}, 'Rules Three nested'],
    ['bv-fact', { category: 'team', subject: 'k' }, 'v'],
    ['bv-fact', { category: 'other' }, 'plain'],
    ['bv-fact', { subject: 'bad' }, 'x [nope]'],
  ]);
});

test('frontmatter: scalars and comma lists accepted, the title falls back to the file name', (t) => {
  const result = convert(
    md('summary: 42\ntags: "a, b"\nkeywords: [x, 7]\nrelated: [a/b/c.md, "@d/e", not a path]', 'Body.'),
    'notes/deploy_checklist.md',
  );
  const attributes = attributesOf(topicOf(result.html));
  t.is(attributes.get('title'), 'deploy checklist');
  t.is(attributes.get('summary'), '42');
  t.is(attributes.get('tags'), 'a,b');
  t.is(attributes.get('keywords'), 'x,7');
  t.is(attributes.get('related'), '@a/b/c.html,@d/e');
  t.true(result.notes.some((n) => n.includes('"not a path"')));
  t.deepEqual(children(result.html), [
    ['bv-highlights', {}, 'Frontmatter related : ["not a path"]'],
    ['bv-highlights', {}, 'Body.'],
  ]);
  t.true(result.notes.some((n) => n.includes('named "deploy checklist"')));
});

test('CRLF line endings and a byte-order mark are read like LF', (t) => {
  const lf = convert(md('title: X\ntags: [a]', '## Reason\nWhy.\n'));
  const crlf = convert(`\ufeff${md('title: X\ntags: [a]', '## Reason\nWhy.\n')}`.replace(/\n/g, '\r\n'));
  t.is(crlf.html, lf.html);
});

test('unsafe markdown never becomes markup', (t) => {
  const result = convert(readFileSync(path.join(BAD, 'unsafe/raw_script.md')), 'unsafe/raw_script.md');
  const tags = [...elementsIn(topicOf(result.html))].map((e) => e.tagName);
  t.false(tags.includes('script'));
  t.false(tags.includes('img'));
  t.false(result.html.includes('href="javascript'));
  t.true(result.html.includes('&lt;script>alert('));
  t.true(result.html.includes('[link](javascript:alert(1))'));
  t.is(result.notes.length, 3);
});

test('bad input: typed errors', (t) => {
  const kind = (input: string | Uint8Array, relative = 'a/b.md') => {
    const result = convertLegacyMarkdown(input, relative);
    return result.ok ? 'ok' : result.kind;
  };
  for (const name of ['frontmatter.md', 'unclosed.md', 'not_a_mapping.md']) {
    t.is(kind(readFileSync(path.join(BAD, 'broken', name))), 'invalid-frontmatter', name);
  }
  t.is(kind(md('title: [a, b]', 'x')), 'invalid-frontmatter', 'a list as title');
  t.is(kind(md('tags: [{a: 1}]', 'x')), 'invalid-frontmatter', 'a mapping in tags');
  t.is(kind(md('title: a\ntitle: b', 'x')), 'invalid-frontmatter', 'duplicate keys');
  t.is(kind(readFileSync(path.join(BAD, 'binary/blob.md'))), 'invalid-encoding');
  t.is(kind(new Uint8Array([0x74, 0x69, 0xe9, 0x0a])), 'invalid-encoding', 'Latin-1 bytes');
  t.is(kind('text with a NUL \u0000 byte'), 'invalid-encoding');
  t.is(kind('lone surrogate \ud800'), 'invalid-encoding');
  t.is(kind('x', 'weird/has space.md'), 'unsafe-path');
  t.is(kind('x', '../escape.md'), 'unsafe-path');
  t.is(kind('x', 'a/b/c/d/e/six.md'), 'unsafe-path');
  t.is(kind('x'.repeat(MAX_TOPIC_BYTES + 1)), 'too-large');
  t.is(kind(`${'> '.repeat(150)}deep`), 'too-large');
  const message = convertLegacyMarkdown(readFileSync(path.join(BAD, 'broken/frontmatter.md')), 'broken/frontmatter.md');
  t.false(message.ok);
  if (!message.ok) t.regex(message.message, /does not parse: .*line 3/);
});

test('an empty body still makes a valid topic', (t) => {
  const result = convert(md('title: Empty', ''));
  t.deepEqual(children(result.html), []);
  t.is(result.html, '<bv-topic path="notes/topic" title="Empty">\n</bv-topic>\n');
});

test('any markdown converts to a valid canonical topic or a typed error, never a throw', (t) => {
  const fragment = fc.constantFrom(
    '## Reason\n',
    '## Raw Concept\n',
    '## Narrative\n',
    '### Rules\n',
    '### Diagrams\n',
    '## Facts\n',
    '## Relations\n',
    '## Odd\n',
    '**Task:**\n',
    '**Patterns:**\n',
    '**Timestamp:** ',
    '- ',
    '1. ',
    '> ',
    '---\n',
    '```\n',
    '```mermaid\n',
    '`',
    '**',
    '_',
    '[x]',
    '(y)',
    '<script>',
    '</bv-topic>',
    '&amp;',
    '<b>',
    '|a|b|\n|-|-|\n',
    '@a/b/c.md',
    '\n',
    '\n\n',
    '  ',
    'text',
    'ü',
    '[l](javascript:x)',
    '![i](data:x)',
  );
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fragment, fc.string({ maxLength: 8, unit: 'binary' })), { maxLength: 40 }),
      fc.boolean(),
      (parts, withFrontmatter) => {
        const body = parts.join('');
        const result = convertLegacyMarkdown(withFrontmatter ? md('title: T\ntags: [a]', body) : body, 'fuzz/topic.md');
        if (!result.ok) return ['invalid-encoding', 'invalid-frontmatter', 'too-large'].includes(result.kind);
        const validation = validateTopicHtml(result.html);
        if (!validation.ok) return false;
        if (validation.topic.canonicalHtml !== result.html) return false;
        return ![...elementsIn(validation.topic.root)].some(
          (e) => e.tagName === 'script' || (e.tagName === 'bv-topic' && e !== validation.topic.root),
        );
      },
    ),
    { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
  );
  t.pass();
});

test('link reference definitions: used ones become links, unused ones are kept as text', (t) => {
  const result = convert(
    md('title: L', '## Reason\nSee [the spec][spec].\n\n[spec]: https://example.com/spec "Spec"\n[unused]: https://example.com/other\n'),
  );
  t.deepEqual(children(result.html), [['bv-reason', {}, 'See the spec . [unused]: https://example.com/other']]);
  t.true(result.html.includes('<a href="https://example.com/spec" title="Spec">the spec</a>'));
});

test('### Rules written as lines of one paragraph: one rule per line (a bullet stays one rule, however it wraps)', (t) => {
  const result = convert(
    md(
      'title: Tokens',
      '## Narrative\n### Rules\nRule 1: Sign with RS256\nRule 2: Rotate keys **monthly**  \nRule 3: Never log tokens\n\n- A bullet rule\n  wrapped onto a second line\n- Another\n',
    ),
    'auth/tokens.md',
  );
  t.deepEqual(
    children(result.html).filter(([tag]) => tag === 'bv-rule'),
    [
      ['bv-rule', {}, 'Rule 1: Sign with RS256'],
      ['bv-rule', {}, 'Rule 2: Rotate keys monthly'],
      ['bv-rule', {}, 'Rule 3: Never log tokens'],
      ['bv-rule', {}, 'A bullet rule wrapped onto a second line'],
      ['bv-rule', {}, 'Another'],
    ],
  );
});

test("createdAt and updatedAt are kept as data-createdat and data-updatedat; a relation to a folder's context.md names the folder", (t) => {
  const result = convert(
    md(
      "title: T\nrelated: [auth/context.md]\ncreatedAt: '2025-11-02T10:00:00.000Z'\nupdatedAt: 2026-01-05T08:00:00.000Z",
      '## Reason\nWhy.',
    ),
    'auth/t.md',
  );
  const attributes = attributesOf(topicOf(result.html));
  t.is(attributes.get('data-createdat'), '2025-11-02T10:00:00.000Z');
  t.is(attributes.get('data-updatedat'), '2026-01-05T08:00:00.000Z');
  t.is(attributes.get('related'), '@auth');
});
