import test from 'ava';
import { parseRelated, relatedWarnings, type TopicPath } from '../../src/topic/index.js';

test('related refs: @ stripped, .html marks an explicit topic, any segment count', (t) => {
  t.deepEqual(parseRelated(' @security/cookies , @security/oauth.html,notes,a/b/c.html,,@security/cookies') as unknown, [
    { ok: true, ref: '@security/cookies', path: 'security/cookies', explicitTopic: false },
    { ok: true, ref: '@security/oauth.html', path: 'security/oauth', explicitTopic: true },
    { ok: true, ref: 'notes', path: 'notes', explicitTopic: false },
    { ok: true, ref: 'a/b/c.html', path: 'a/b/c', explicitTopic: true },
  ]);
  t.deepEqual(parseRelated(undefined), []);
});

test('unsafe refs are returned as invalid, not thrown', (t) => {
  const [ref] = parseRelated('@../etc/passwd');
  t.like(ref, { ok: false, ref: '@../etc/passwd' });
});

test('relatedWarnings: advisory messages for missing targets', (t) => {
  const existing: Record<string, 'topic' | 'folder'> = { 'security/cookies': 'topic', security: 'folder' };
  const exists = (path: TopicPath) => existing[path] ?? 'none';
  const refs = parseRelated('@security/cookies,@security,@security.html,@security/gone.html,@nowhere,@../x');
  const warnings = relatedWarnings(refs, exists);
  t.is(warnings.length, 4, warnings.join('\n'));
  t.regex(warnings[0] ?? '', /"@security.html".*is a folder/);
  t.regex(warnings[1] ?? '', /"@security\/gone.html" names a topic that does not exist/);
  t.regex(warnings[2] ?? '', /"@nowhere" matches no topic or folder/);
  t.regex(warnings[3] ?? '', /"@..\/x" is ignored/);
});
