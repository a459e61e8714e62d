import type { Element, Text } from 'hast';
import { isBvTag, startOf } from './hast.js';
import { BLOCK_TAGS, elementSpec, INLINE_TAGS, type ContentModel } from './registry.js';
import { TOPIC_SCHEMA } from './safety.js';
import type { TopicError } from './types.js';

const INLINE = new Set(INLINE_TAGS);
const BLOCK = new Set([...INLINE_TAGS, ...BLOCK_TAGS]);
const LIST_OWNERS = new Set(['bv-changes', 'bv-files']);
// Tags outside the allowlist are reported by the safety check; a nesting error on top would be noise.
const SAFE_TAGS = new Set(TOPIC_SCHEMA.tagNames);

function nestingError(tag: string, message: string, node: Element | Text): TopicError {
  return { kind: 'invalid-nesting', tag, message, ...startOf(node) };
}

const ALLOWED_TEXT: Record<'inline' | 'block', string> = {
  inline: `text and <${INLINE_TAGS.join('>, <')}>`,
  block: `text, <${INLINE_TAGS.join('>, <')}>, <${BLOCK_TAGS.join('>, <')}>`,
};

function checkContent(parent: Element, owner: string, model: ContentModel, errors: TopicError[]): void {
  for (const child of parent.children) {
    if (child.type !== 'element') continue;
    const tag = child.tagName;
    if (isBvTag(tag)) {
      if (tag !== 'bv-topic') {
        errors.push(
          nestingError(
            tag,
            `<${tag}> is inside <${owner}>, but bv-* elements cannot contain other bv-* elements; make <${tag}> a direct child of <bv-topic>.`,
            child,
          ),
        );
      }
      continue;
    }
    if (!SAFE_TAGS.has(tag)) continue;
    if (model === 'text') {
      errors.push(
        nestingError(
          tag,
          `<${tag}> is inside <${owner}>, which holds plain text only; remove the markup (write < as &lt; and & as &amp;).`,
          child,
        ),
      );
      continue;
    }
    const kind = model === 'inline' ? 'inline' : 'block';
    if (!(kind === 'inline' ? INLINE : BLOCK).has(tag)) {
      // Its content is judged once it has been moved; reporting it now would be noise.
      errors.push(nestingError(tag, `<${tag}> is not allowed inside <${owner}> (${kind} content: ${ALLOWED_TEXT[kind]}).`, child));
      continue;
    }
    if (tag === 'li' && !['ul', 'ol'].includes(parent.tagName) && !(parent.tagName === owner && LIST_OWNERS.has(owner))) {
      errors.push(
        nestingError(
          tag,
          `<li> is inside <${parent.tagName}>; put <li> in a <ul> or <ol> (or directly in <bv-changes> or <bv-files>).`,
          child,
        ),
      );
    }
    checkContent(child, owner, model, errors);
  }
}

/** Content-model rules for the children of `<bv-topic>` and everything inside them. */
export function checkNesting(topic: Element): TopicError[] {
  const errors: TopicError[] = [];
  for (const child of topic.children) {
    if (child.type === 'text' && child.value.trim() !== '') {
      const excerpt = child.value.trim().slice(0, 40);
      errors.push(
        nestingError(
          'bv-topic',
          `Text "${excerpt}" is directly inside <bv-topic>; put it in a bv-* element such as <bv-reason> or <bv-highlights>.`,
          child,
        ),
      );
    } else if (child.type === 'element') {
      const tag = child.tagName;
      if (tag === 'bv-topic') continue; // reported as multiple-bv-topic
      if (isBvTag(tag)) {
        checkContent(child, tag, elementSpec(tag)?.content ?? 'block', errors);
      } else if (SAFE_TAGS.has(tag)) {
        errors.push(
          nestingError(
            tag,
            `<${tag}> is directly inside <bv-topic>, whose children must be bv-* elements; wrap it in one, e.g. <bv-structure>.`,
            child,
          ),
        );
      }
    }
  }
  return errors;
}
