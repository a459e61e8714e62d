// What the tests reach through one import; src/ imports the modules themselves.
export type { TopicError, TopicPath } from './types.js';
export { ELEMENTS, elementSpec, renderVocabulary, validateElementAttributes } from './registry.js';
export { normalizeTopicPath, topicBlobPath, topicPathFromBlobPath } from './path.js';
export { parseTopicHtml, stripCodeFence } from './parse.js';
export { MAX_TOPIC_BYTES, validateTopicHtml } from './validate.js';
export { parseRelated, relatedWarnings } from './related.js';
export { serializeCanonical } from './canonical.js';
export { renderTopicMarkdown } from './render.js';
export { topicText } from './text.js';
export { mergeTopicHtml, type TopicMergeResult } from './merge.js';
