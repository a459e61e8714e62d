/**
 * Size and depth limits of topics, in a module with no imports: the query path, the hooks and
 * export bound what they read without loading any HTML code.
 */

/** The largest topic brv writes (UTF-8 bytes): part of the curate contract. */
export const MAX_TOPIC_BYTES = 256 * 1024;

/** Real topics nest a handful of levels; the cap keeps every tree walk far from the stack limit. */
export const MAX_NESTING_DEPTH = 100;

/**
 * Blobs read from the object store above this are never read or parsed (brv never wrote them).
 * @alias the same number as MAX_TOPIC_BYTES today, named for what it bounds
 */
export const MAX_STORED_TOPIC_BYTES = MAX_TOPIC_BYTES;
