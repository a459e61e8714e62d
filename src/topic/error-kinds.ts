/**
 * The kinds of error topic validation reports, each with a one-line meaning. They are part of brv's
 * one registry of error kinds (`src/base/error-kinds.ts` spreads this record in); they live here so that
 * `topic/` stays a leaf that imports nothing outside itself.
 */
export const TOPIC_ERROR_KINDS = {
  'missing-bv-topic': 'The HTML has no `<bv-topic>` root element.',
  'multiple-bv-topic': 'The HTML has more than one `<bv-topic>` element; a topic is exactly one.',
  'missing-path-attribute': 'The `<bv-topic>` element has no `path` attribute.',
  'unsafe-path':
    'A topic path (or a path to export) is not safe: absolute, with `..`, bad characters, or (new topics) a Windows device name or a trailing dot.',
  'unknown-element':
    'The topic uses an element that is neither in the bv-* vocabulary nor allowed plain HTML (dangerous ones are unsafe-html).',
  'attribute-validation': 'An element has an attribute that is unknown, missing or has a value it does not allow.',
  'unsafe-html':
    'The topic holds something that could run or load content (script, embed, form, SVG, event handler, unsafe URL) or control characters.',
  'invalid-nesting': 'An element is placed where it is not allowed (block content inside inline content, or the like).',
  'content-outside-topic': 'The HTML has text or elements outside the `<bv-topic>` element.',
  'too-large': 'An input is over its size limit (a topic, a response, a question, a file, or nesting depth).',
} as const;
