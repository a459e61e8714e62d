/** Search: analysis, index documents, binary segments, stacks with incremental updates, BM25F ranking. */
export {analyze, analyzeWithOriginals, type AnalyzedWord} from './analyze.js'
export {datesIn, documentFromTopic, FIELD_COUNT, FIELDS, type FieldName, type IndexDocument, type SegmentInput} from './document.js'
export {buildSegment, mergeSegments, Segment, SEGMENT_FORMAT_VERSION, type Postings, type SegmentDocument} from './segment.js'
export {
  applyIndexUpdate,
  compact,
  EMPTY_MANIFEST,
  liveView,
  MAX_DELTA_RATIO,
  MAX_SEGMENTS,
  openStack,
  parseStackManifest,
  planIndexUpdate,
  segmentFileName,
  serializeStack,
  shouldCompact,
  singleSegmentManifest,
  STACK_MANIFEST_FORMAT,
  type IndexChanges,
  type IndexUpdatePlan,
  type LiveView,
  type SegmentEntry,
  type SegmentStack,
  type StackManifest,
} from './stack.js'
export {DEFAULT_FIELD_WEIGHTS, search, type SearchHit, type SearchOptions, type SearchResult} from './search.js'
