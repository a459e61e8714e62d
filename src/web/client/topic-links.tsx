// The knowledge graph around the open topic (GET /api/topic/links): what its `related` attribute names, and the
// topics whose `related` names it, each a link to that topic, so the graph can be walked both ways.
import type { TopicLinksResponse } from '../api-types.js';
import { list, str, wire } from './json.js';
import { topicHref } from './routes.js';
import { Link, useApi } from './ui.js';

interface Linked {
  path: string;
  title: string;
  folder: boolean;
}

function readLinks(value: unknown): { related: Linked[]; backlinks: Linked[] } {
  const body = wire<TopicLinksResponse>(value);
  const read = (item: unknown): Linked => {
    const r = wire<TopicLinksResponse['related'][number]>(item);
    const path = str(r.path);
    return { path, title: str(r.title, path), folder: r.kind === 'folder' };
  };
  const valid = (link: Linked) => link.path !== '';
  return { related: list(body.related).map(read).filter(valid), backlinks: list(body.backlinks).map(read).filter(valid) };
}

export function TopicLinks({ path, source }: { path: string; source: string | null }) {
  const answer = useApi(
    `/api/topic/links?path=${encodeURIComponent(path)}${source === null ? '' : `&source=${encodeURIComponent(source)}`}`,
  );
  if (answer.data === null) return null;
  const { related, backlinks } = readLinks(answer.data);
  if (related.length === 0 && backlinks.length === 0) return null;
  const item = (link: Linked, testid: string) => (
    <li key={link.path}>
      {link.folder ? (
        <span data-testid={testid} data-path={link.path}>
          <code>{link.path}/</code> <span class="muted">(folder)</span>
        </span>
      ) : (
        <Link href={topicHref(link.path, 'rendered', source)} data-testid={testid} data-path={link.path} title={link.path}>
          {link.title}
        </Link>
      )}
    </li>
  );
  return (
    <aside class="topic-links" data-testid="topic-links" aria-label="Linked topics">
      {related.length > 0 ? (
        <section>
          <h2>Related</h2>
          <ul>{related.map((link) => item(link, 'related-link'))}</ul>
        </section>
      ) : null}
      {backlinks.length > 0 ? (
        <section>
          <h2>Linked from</h2>
          <ul>{backlinks.map((link) => item(link, 'backlink'))}</ul>
        </section>
      ) : null}
    </aside>
  );
}
