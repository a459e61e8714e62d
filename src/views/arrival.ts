import type { KnowledgeNotice } from '../service/brv.js';
import { markdownInline } from '../topic/inline.js';

/**
 * What a read tells once about fetched knowledge it could not bring in (Brv.knowledgeNotice): one
 * line, naming the command that fixes it. The CLI prints it on stderr in text mode (JSON carries the
 * notice itself in `meta.knowledge`); MCP results end with it.
 */
export function knowledgeNoticeText(notice: KnowledgeNotice): string {
  const source = `${notice.remote}/${notice.branch}`;
  switch (notice.state) {
    case 'diverged': {
      const counts =
        notice.ahead + notice.behind > 0 ? ` (${notice.ahead} local, ${notice.behind} fetched commit(s) not on the other side)` : '';
      return `brv: knowledge on ${notice.branch} and ${source} have diverged${counts}; this read answers from the local branch. Run brv sync to merge them.`;
    }
    case 'held':
      return `brv: knowledge fetched from ${source} waits as review ${notice.review} (held: ${notice.rule}); this read answers without it. See it with brv review show ${notice.review}, then approve or reject it.`;
    case 'refused':
      return `brv: fetched knowledge on ${source} was not taken (${notice.kind}): ${notice.message}`;
    case 'failed':
      return `brv: fetched knowledge on ${source} could not be brought in (${notice.kind}): ${notice.message} This read answers from the local branch; brv sync tries again.`;
  }
}

/** The same, as a markdown paragraph for an MCP result. */
export function knowledgeNoticeMarkdown(notice: KnowledgeNotice): string {
  return `> **Note:** ${markdownInline(knowledgeNoticeText(notice).replace(/^brv: /, ''))}`;
}
