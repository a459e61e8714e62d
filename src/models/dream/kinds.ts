/** What `brv dream` looks for (a leaf of the feature: the CLI checks `--kinds` without loading the rest). */
export const DREAM_KINDS = ['link', 'merge', 'prune', 'stale', 'synthesize'] as const;
export type DreamKind = (typeof DREAM_KINDS)[number];
