import test from 'ava';
import { pageHref, parseRoute, routeHref, topicHref, type Route } from '../../src/web/client/routes.js';

test('the contract URLs parse to their pages', (t) => {
  t.deepEqual(parseRoute('/'), { page: 'knowledge', topic: null, tab: 'rendered' });
  t.deepEqual(parseRoute('/knowledge'), { page: 'knowledge', topic: null, tab: 'rendered' });
  t.deepEqual(parseRoute('/knowledge/'), { page: 'knowledge', topic: null, tab: 'rendered' });
  t.deepEqual(parseRoute('/knowledge/security/auth'), { page: 'knowledge', topic: 'security/auth', tab: 'rendered' });
  t.deepEqual(parseRoute('/knowledge/a/b', '?tab=history'), { page: 'knowledge', topic: 'a/b', tab: 'history' });
  t.deepEqual(parseRoute('/knowledge/a', '?tab=bogus'), { page: 'knowledge', topic: 'a', tab: 'rendered' });
  t.deepEqual(parseRoute('/search', '?q=jwt+rotation'), { page: 'search', q: 'jwt rotation' });
  t.deepEqual(parseRoute('/search', '?q=a%26b'), { page: 'search', q: 'a&b' });
  t.deepEqual(parseRoute('/search'), { page: 'search', q: '' });
  t.deepEqual(parseRoute('/changes'), { page: 'changes' });
  t.deepEqual(parseRoute('/reviews/'), { page: 'reviews' });
  t.deepEqual(parseRoute('/branches'), { page: 'branches' });
  t.deepEqual(parseRoute('/branches/x').page, 'not-found');
  t.deepEqual(parseRoute('/setup'), { page: 'setup' });
  t.deepEqual(parseRoute('/elsewhere'), { page: 'not-found', path: '/elsewhere' });
  t.deepEqual(parseRoute('/reviews/x'), { page: 'not-found', path: '/reviews/x' });
});

test('topic paths are decoded per segment; traversal and malformed escapes are not topics', (t) => {
  t.deepEqual(parseRoute('/knowledge/notes/caf%C3%A9%20menu'), { page: 'knowledge', topic: 'notes/café menu', tab: 'rendered' });
  t.is(parseRoute('/knowledge/a/%2e%2e/b').page, 'not-found');
  t.is(parseRoute('/knowledge/a%2Fb').page, 'not-found');
  t.is(parseRoute('/knowledge/%E0%A4%A').page, 'not-found');
});

test('routeHref is the inverse of parseRoute', (t) => {
  const routes: Route[] = [
    { page: 'knowledge', topic: null, tab: 'rendered' },
    { page: 'knowledge', topic: 'a/b c/ü?#', tab: 'rendered' },
    { page: 'knowledge', topic: 'x', tab: 'raw' },
    { page: 'knowledge', topic: 'a/b', tab: 'rendered', source: 'platform' },
    { page: 'knowledge', topic: 'a', tab: 'raw', source: 'team.docs_2' },
    { page: 'search', q: 'tokens & "keys" ?' },
    { page: 'search', q: '' },
    { page: 'search', q: 'keys', scope: 'security/auth', kind: 'rule', since: '2026-01-01', until: '2026-12-31', at: 'main~2' },
    { page: 'search', q: '', at: '2 days ago' },
    { page: 'changes' },
    { page: 'reviews' },
    { page: 'branches' },
    { page: 'setup' },
  ];
  for (const route of routes) {
    const url = new URL(routeHref(route), 'http://127.0.0.1:7700');
    t.deepEqual(parseRoute(url.pathname, url.search), route, routeHref(route));
  }
  t.is(topicHref('a b/c'), '/knowledge/a%20b/c');
  t.is(topicHref('a', 'history'), '/knowledge/a?tab=history');
  t.is(pageHref('reviews'), '/reviews');
});

test('a knowledge source topic: ?source=<alias>, Rendered and Raw only; a malformed alias is no page', (t) => {
  t.is(topicHref('a/b', 'rendered', 'platform'), '/knowledge/a/b?source=platform');
  t.is(topicHref('a/b', 'raw', 'platform'), '/knowledge/a/b?source=platform&tab=raw');
  t.is(topicHref('a/b', 'raw', null), '/knowledge/a/b?tab=raw');
  t.deepEqual(parseRoute('/knowledge/a/b', '?source=platform'), { page: 'knowledge', topic: 'a/b', tab: 'rendered', source: 'platform' });
  t.deepEqual(parseRoute('/knowledge/a/b', '?source=platform&tab=history'), {
    page: 'knowledge',
    topic: 'a/b',
    tab: 'rendered',
    source: 'platform',
  });
  for (const bad of ['..', '../x', 'a/b', '', '-x', 'x'.repeat(65)]) {
    t.is(parseRoute('/knowledge/a', `?source=${encodeURIComponent(bad)}`).page, 'not-found', bad);
  }
});
