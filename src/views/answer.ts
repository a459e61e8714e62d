import type { AnswerResult } from '../service/retrieval.js';
import { markdownInline } from '../topic/inline.js';

/** The answer's text (checked by the service: control characters stripped, citations valid). */
function answerBody(result: AnswerResult): string {
  if (!result.notInKnowledge) return result.answer;
  return result.topics.length === 0
    ? 'Not in the knowledge: no topic is relevant to this question.'
    : `Not in the knowledge: the ${result.topics.length === 1 ? 'topic' : `${result.topics.length} topics`} brv found do not answer it.`;
}

function titleOf(result: AnswerResult, path: string): string {
  return result.topics.find((t) => t.path === path)?.title ?? '';
}

/**
 * `brv query --answer` for a terminal: the answer, then the topics it cites (path and title); when
 * there is no answer, the topics the model was shown. Model-cited paths the model was not shown
 * are named as removed.
 */
export function answerText(result: AnswerResult): string {
  const lines = [answerBody(result)];
  const listed = result.notInKnowledge ? result.topics.map((t) => t.path) : result.citations;
  if (listed.length > 0) {
    lines.push('', result.notInKnowledge ? 'Topics read:' : 'Sources:');
    for (const path of listed) {
      const title = titleOf(result, path);
      lines.push(`  ${markdownInline(path)}${title ? ` — ${markdownInline(title)}` : ''}`);
    }
  }
  if (result.rejectedCitations.length > 0)
    lines.push(
      '',
      `Removed citations of topics the model was not shown: ${result.rejectedCitations.map((p) => markdownInline(p)).join(', ')}`,
    );
  return lines.join('\n');
}

/** MCP `brv-query` with `answer`: the answer and its sources as markdown. */
export function answerMarkdown(result: AnswerResult): string {
  const parts = [`**Answer**\n\n${answerBody(result)}`];
  const listed = result.notInKnowledge ? result.topics.map((t) => t.path) : result.citations;
  if (listed.length > 0) {
    parts.push(
      `**${result.notInKnowledge ? 'Topics read' : 'Sources'}**\n\n${listed
        .map(
          (path) => `- ${markdownInline(path, 'line-start')}${titleOf(result, path) ? ` — ${markdownInline(titleOf(result, path))}` : ''}`,
        )
        .join('\n')}`,
    );
  }
  if (result.rejectedCitations.length > 0)
    parts.push(
      `_Removed citations of topics the model was not shown: ${result.rejectedCitations.map((p) => markdownInline(p)).join(', ')}_`,
    );
  return parts.join('\n\n');
}
