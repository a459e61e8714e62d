// brv's ref names: the only place they are spelled (scripts/check-ref-names.mjs fails on "refs/brv"
// anywhere else in src/). No imports, so front ends can name refs in help texts without loading the store.

export const DEFAULT_BRANCH = 'main';

/** Every ref brv owns lives below this prefix (what a long-lived server watches for change events). */
export const BRV_REF_PREFIX = 'refs/brv/';
export const BRANCH_PREFIX = 'refs/brv/heads/';
export const REVIEW_PREFIX = 'refs/brv/review/';

export function branchRef(branch: string): string {
  return `${BRANCH_PREFIX}${branch}`;
}

/** A change awaiting review: the ref points at the reviewed commit. */
export function reviewRef(id: string): string {
  return `${REVIEW_PREFIX}${id}`;
}

/** Where fetch keeps every remote's brv branches and reviews (never under refs/remotes/, never pushed). */
export const REMOTES_PREFIX = 'refs/brv/remotes/';
/** Read-only knowledge of other repositories (`brv source add`), one folder per alias. */
export const SOURCES_PREFIX = 'refs/brv/sources/';
/** Where a fetch stages refs (one namespace per process) before checking and moving them. */
export const INCOMING_PREFIX = 'refs/brv/incoming/';

/** Everything fetch keeps of one remote: `<prefix>heads/<branch>` and `<prefix>review/<id>`. */
export function remoteTrackingPrefix(remote: string): string {
  return `${REMOTES_PREFIX}${remote}/`;
}

export function remoteBranchPrefix(remote: string): string {
  return `${remoteTrackingPrefix(remote)}heads/`;
}

/** Where fetch keeps a remote's brv branches and reviews (never under refs/remotes/, never pushed). */
export function remoteBranchRef(remote: string, branch: string): string {
  return `${remoteBranchPrefix(remote)}${branch}`;
}

export function remoteReviewPrefix(remote: string): string {
  return `${remoteTrackingPrefix(remote)}review/`;
}

/** The remote and branch of a remote-tracking brv branch ref; undefined for any other ref. */
export function parseRemoteBranchRef(ref: string): { remote: string; branch: string } | undefined {
  const match = /^refs\/brv\/remotes\/([^/]+)\/heads\/(.+)$/.exec(ref);
  return match ? { remote: match[1]!, branch: match[2]! } : undefined;
}

/** Fetch refspecs for one remote: forced only into brv's own remote-tracking namespace. */
export function fetchRefspecs(remote: string): string[] {
  return [`+${BRANCH_PREFIX}*:${remoteBranchPrefix(remote)}*`, `+${REVIEW_PREFIX}*:${remoteReviewPrefix(remote)}*`];
}

/** Read-only knowledge of another repository (`brv source add`). */
export function sourceRef(alias: string, branch = DEFAULT_BRANCH): string {
  return `${SOURCES_PREFIX}${alias}/${branch}`;
}

/** The alias and branch of a source ref; undefined for any other ref. */
export function parseSourceRef(ref: string): { alias: string; branch: string } | undefined {
  const match = /^refs\/brv\/sources\/([^/]+)\/(.+)$/.exec(ref);
  return match ? { alias: match[1]!, branch: match[2]! } : undefined;
}
