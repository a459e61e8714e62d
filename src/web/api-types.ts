// The JSON API's answers, declared once for the server (src/web/server.ts types its route table against
// ApiRoutes, so a result of another shape fails `npm run typecheck`) and the browser client (src/web/client,
// built with tsconfig.client.json), which imports these types. Plain types only: nothing here may import a
// node module or anything outside this file, since both tsconfigs compile it. The client still reads every
// answer defensively (src/web/client/json.ts): these types say what a well-formed answer holds.

/** GET /api/status. */
export interface StatusResponse {
  repository: string;
  branch: string;
  head: string | null;
  topics: number;
  pendingReviews: number;
  version: string;
  /** The branch against its remote as of the last fetch (null without a remote). */
  upstream: { remote: string; ahead: number; behind: number; local: boolean } | null;
  /** Knowledge fetched that the branch lacks, with the command that takes it; null when there is none. */
  incoming: string | null;
}

/** GET /api/topic?path=…[&source=…]. */
export interface TopicResponse {
  path: string;
  title: string;
  /** Display HTML, sanitised by the server. */
  html: string;
  raw: string;
  markdown: string;
  commit: string;
  /** A knowledge source's topic: its alias. */
  source?: string;
}

/** One result of GET /api/search. */
export interface SearchHit {
  path: string;
  title: string;
  score: number;
  excerpt: string;
  terms: string[];
  /** From a knowledge source: its alias (the topic opens read-only). */
  source?: string;
}

/** GET /api/search?q=…. */
export interface SearchResponse {
  results: SearchHit[];
}

/** A history entry's signature as git checked it. */
export interface EntrySignature {
  /** git's letter (`%G?`): G good, U unknown key, B bad, N none… */
  status: string;
  /** "signed by alice@example.com (allowed)", "unsigned"… */
  text: string;
  signer?: string;
  key?: string;
}

/** A commit's brv trailers (`Brv-Op: curate`…), as src/store/trailers.ts reads them. */
export interface CommitMeta {
  op?: string;
  type?: string;
  impact?: string;
  reason?: string;
  summary?: string;
  previousSummary?: string;
  confidence?: string;
  session?: string;
  agent?: string;
  conflicts?: string[];
  /** The review a decision commit settles, and the files it decided. */
  review?: string;
  files?: string[];
  /** "held": a gated change, on its review ref only until approved. */
  gate?: string;
  /** An incoming-hold commit: the remote branch whose knowledge it holds. */
  incoming?: string;
  hold?: string;
  untrusted?: string[];
  proposals?: string[];
}

/** One commit of the knowledge history, as GET /api/changes and /api/topic/history send it. */
export interface HistoryEntry {
  commit: string;
  parents: string[];
  time: string;
  author: string;
  subject: string;
  /** The commit's brv metadata from its trailers (absent fields: a commit made without them). */
  meta: CommitMeta;
  changes: Array<{ status: 'added' | 'modified' | 'deleted'; path: string }>;
  /** Changes of the commit beyond those listed (the server caps the list per entry). */
  changesOmitted?: number;
  /** The last commit a shallow clone has. */
  shallow?: true;
  signature?: EntrySignature;
}

/** GET /api/changes?limit=… and GET /api/topic/history?path=…. */
export interface HistoryResponse {
  entries: HistoryEntry[];
}

/** GET /api/tree?folder=…[&offset=…&limit=…&around=…&source=…]: one page of a folder's children. */
export interface TreeResponse {
  commit: string | null;
  folder: string;
  /** Topics below the folder, at any depth. */
  count: number;
  /** Children listed: sub-folders first (sorted by name), then topics (sorted by name); `offset` indexes that list. */
  total: number;
  folderTotal: number;
  offset: number;
  folders: Array<{ path: string; name: string; count: number }>;
  topics: Array<{ path: string; name: string; title: string }>;
  /** A knowledge source's tree: its alias. */
  source?: string;
}

/** GET /api/sources: the knowledge sources added with `brv source add`. */
export interface SourcesResponse {
  sources: Array<{ alias: string; location: string; branch: string; commit: string | null; topics: number }>;
}

/** Every typed endpoint: path → method → the answer's JSON. */
export interface ApiRoutes {
  '/api/status': { GET: StatusResponse };
  '/api/topic': { GET: TopicResponse };
  '/api/topic/history': { GET: HistoryResponse };
  '/api/search': { GET: SearchResponse };
  '/api/changes': { GET: HistoryResponse };
  '/api/tree': { GET: TreeResponse };
  '/api/sources': { GET: SourcesResponse };
}
