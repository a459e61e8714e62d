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

/**
 * Where a remote keeps brv's branches and reviews, chosen per remote (`remote.<name>.brvLayout`).
 * `refs` (the default): under refs/brv/ as here. `branches`, for hosts that accept only branches and
 * tags: brv branch <b> is the ordinary branch `brv/<b>`, review <id> the branch `brv-review/<id>`
 * (a namespace of its own, so a brv branch named `review` cannot clash with a review). Only the
 * remote side differs: the local branches and the remote-tracking refs are the same in every layout.
 */
export const REMOTE_LAYOUTS = ['refs', 'branches'] as const;
export type RemoteLayout = (typeof REMOTE_LAYOUTS)[number];
export const DEFAULT_REMOTE_LAYOUT: RemoteLayout = 'refs';

/** The prefixes of a remote's brv branches and reviews in a layout. */
export function remoteSide(layout: RemoteLayout): { branches: string; reviews: string } {
  return layout === 'branches'
    ? { branches: 'refs/heads/brv/', reviews: 'refs/heads/brv-review/' }
    : { branches: BRANCH_PREFIX, reviews: REVIEW_PREFIX };
}

/**
 * The local name of a ref as the remote names it in `layout`: brv branch and review refs become
 * `refs/brv/heads/<b>` and `refs/brv/review/<id>` (a prefix maps to a prefix); anything else is returned as is.
 */
export function localNameOf(layout: RemoteLayout, remoteRef: string): string {
  const side = remoteSide(layout);
  if (remoteRef.startsWith(side.branches)) return `${BRANCH_PREFIX}${remoteRef.slice(side.branches.length)}`;
  if (remoteRef.startsWith(side.reviews)) return `${REVIEW_PREFIX}${remoteRef.slice(side.reviews.length)}`;
  return remoteRef;
}

/** Where fetch keeps a ref the remote names `remoteRef` in `layout` (a prefix maps to a prefix). */
export function trackingRefOf(layout: RemoteLayout, remote: string, remoteRef: string): string {
  const local = localNameOf(layout, remoteRef);
  return local.startsWith(BRANCH_PREFIX)
    ? `${remoteBranchPrefix(remote)}${local.slice(BRANCH_PREFIX.length)}`
    : `${remoteReviewPrefix(remote)}${local.slice(REVIEW_PREFIX.length)}`;
}

/** The remote's name for a local brv branch or review ref in `layout` (the inverse of localNameOf). */
export function remoteNameOf(layout: RemoteLayout, localRef: string): string {
  const side = remoteSide(layout);
  if (localRef.startsWith(BRANCH_PREFIX)) return `${side.branches}${localRef.slice(BRANCH_PREFIX.length)}`;
  if (localRef.startsWith(REVIEW_PREFIX)) return `${side.reviews}${localRef.slice(REVIEW_PREFIX.length)}`;
  return localRef;
}

/**
 * Where git's default refspec (`+refs/heads/*:refs/remotes/<remote>/*`, as a plain `git clone` or
 * `git fetch` has it) puts a remote's brv branches of the branches layout.
 */
export function plainBranchesLayoutPrefix(remote: string): string {
  return `refs/remotes/${remote}/brv/`;
}

/** Fetch refspecs for one remote: forced only into brv's own remote-tracking namespace. */
export function fetchRefspecs(remote: string, layout: RemoteLayout = DEFAULT_REMOTE_LAYOUT): string[] {
  const side = remoteSide(layout);
  return [`+${side.branches}*:${remoteBranchPrefix(remote)}*`, `+${side.reviews}*:${remoteReviewPrefix(remote)}*`];
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

/**
 * What a ref under refs/brv/ names, from its name alone (a long-lived server's change events are typed
 * by it, so front ends never look at ref names): a brv branch, a review, a remote's copy of a branch or
 * review, a knowledge source's branch, or anything else (fetch's staging refs).
 */
export type BrvRefName =
  | { kind: 'branch'; branch: string }
  | { kind: 'review'; review: string }
  | { kind: 'remote'; remote: string; branch: string; review?: undefined }
  | { kind: 'remote'; remote: string; review: string; branch?: undefined }
  | { kind: 'source'; source: string; branch: string }
  | { kind: 'other' };

export function parseBrvRef(ref: string): BrvRefName {
  if (ref.startsWith(BRANCH_PREFIX)) return { kind: 'branch', branch: ref.slice(BRANCH_PREFIX.length) };
  if (ref.startsWith(REVIEW_PREFIX)) return { kind: 'review', review: ref.slice(REVIEW_PREFIX.length) };
  const tracked = /^refs\/brv\/remotes\/([^/]+)\/(heads|review)\/(.+)$/.exec(ref);
  if (tracked)
    return tracked[2] === 'heads'
      ? { kind: 'remote', remote: tracked[1]!, branch: tracked[3]! }
      : { kind: 'remote', remote: tracked[1]!, review: tracked[3]! };
  const source = parseSourceRef(ref);
  if (source) return { kind: 'source', source: source.alias, branch: source.branch };
  return { kind: 'other' };
}
