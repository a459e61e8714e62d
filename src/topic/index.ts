export type { ParsedTopic, RelatedRef, TopicError, TopicErrorKind, TopicPath, TopicValidation } from './types.js';
export { TOPIC_ERROR_KINDS } from './error-kinds.js';
export {
  BLOCK_TAGS,
  ELEMENTS,
  INLINE_TAGS,
  RESERVED_TOPIC_ATTRIBUTES,
  TOLERATED_TOPIC_ATTRIBUTES,
  elementSpec,
  renderVocabulary,
  validateElementAttributes,
  type AttributeSpec,
  type ContentModel,
  type ElementSpec,
} from './registry.js';
export {
  MAX_PATH_LENGTH,
  MAX_PATH_SEGMENTS,
  MAX_SEGMENT_LENGTH,
  normalizeTopicPath,
  topicBlobPath,
  topicPathFromBlobPath,
  type PathResult,
} from './path.js';
export { parseTopicHtml, stripCodeFence } from './parse.js';
export { MAX_NESTING_DEPTH, MAX_TOPIC_BYTES, validateTopicHtml, type TopicLimits } from './validate.js';
export { parseRelated, relatedWarnings, type PathKind } from './related.js';
export { serializeCanonical } from './canonical.js';
export { renderTopicMarkdown } from './render.js';
export { markdownInline } from './inline.js';
export { topicText, type ElementText, type TopicText } from './text.js';
export { TOPIC_SCHEMA } from './safety.js';
export { mergeTopicHtml, type TopicMergeConflict, type TopicMergeLabels, type TopicMergeResult } from './merge.js';
export { convertLegacyMarkdown, type LegacyMarkdownErrorKind, type LegacyMarkdownResult } from './legacy-markdown.js';
