// The JSON API, declared once: every endpoint's answer (ApiRoutes) and request body (ApiBodies), for the server
// (its route tables in server.ts, tree-routes.ts, review-routes.ts and manage-routes.ts are typed against these,
// so a result of another shape fails `npm run typecheck`; test/web/api-types.test.ts also refuses a field the
// server sends that is not declared here) and for the browser client (src/web/client, built with
// tsconfig.client.json), which imports these types. Plain types only: nothing here may import a node module or
// anything outside this file, since both tsconfigs compile it. The client still reads every answer defensively
// (src/web/client/json.ts): these types say what a well-formed answer holds. Where the server passes a service
// result through as it is, the type here mirrors it (the test holds them together).

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
  /** The model that wrote the change (`provider/model`): a self-driven curate, a dream. */
  model?: string;
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
  /** What a curate that replaced a topic took out of it (`fact …`, `rule …`, `file …`, `section …`). */
  removed?: string[];
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
  /** Children listed: sub-folders first (by name), then topics (by title, as the tree shows them; numbers in order, case aside); `offset` indexes that list. */
  total: number;
  folderTotal: number;
  offset: number;
  folders: Array<{ path: string; name: string; count: number }>;
  topics: Array<{ path: string; name: string; title: string }>;
  /** A knowledge source's tree: its alias. */
  source?: string;
}

/**
 * GET /api/topic/links?path=…[&source=…]: the knowledge graph around a topic. `related`: what its `related`
 * attribute names that exists (a topic, or a folder holding topics); `backlinks`: the topics whose `related` names it.
 */
export interface TopicLinksResponse {
  path: string;
  commit: string | null;
  related: Array<{ path: string; kind: 'topic' | 'folder'; title: string }>;
  backlinks: Array<{ path: string; title: string }>;
  source?: string;
}

/** GET /api/sources: the knowledge sources added with `brv source add`. */
export interface SourcesResponse {
  sources: Array<{ alias: string; location: string; branch: string; commit: string | null; topics: number }>;
}

/** An error's kind and message, as every error answer carries them (`kind`: one of docs/errors.md). */
export interface ApiFailure {
  kind: string;
  message: string;
}

/** Any refused request: the status says how (src/web/request.ts errorStatus); some kinds add fields (below). */
export interface ErrorResponse {
  error: ApiFailure & Record<string, unknown>;
}

/** A topic whose stored blob is over the size limit: never read, so no diff or conflicts (`too-large`). */
export interface TopicProblem {
  kind: 'too-large';
  message: string;
}

/** A review opened by a change (a gated change, a merge with conflicts). */
export interface OpenedReview {
  id: string;
  ref: string;
  gated: boolean;
}

// ---- Reviews (src/web/review-routes.ts) ----

/** One topic of a pending review, with the diff a person reviews. */
export interface ReviewOperation {
  /** The topic path (what approve and reject take in `topics`). */
  path: string;
  filePath: string;
  /** ADD, UPDATE, DELETE, MERGE… */
  type: string;
  impact?: string;
  reason?: string;
  summary?: string;
  previousSummary?: string;
  /** The unified diff of the rendered markdown; null when there is none to show. */
  diff: string | null;
  /** Why `diff` is null: the topic is too large to read. */
  problem?: TopicProblem;
  /**
   * A merge's topic: `diff` is what approving keeps (the topic before the merge against the branch now,
   * resolutions included), or `unchanged` (diff null) when a resolution kept the text from before the merge.
   */
  landing?: 'diff' | 'unchanged';
}

export interface PendingReview {
  taskId: string;
  commit: string;
  subject: string;
  gated: boolean;
  onBranch: boolean;
  /** When the change was recorded (ISO 8601). */
  time: string;
  /** The commit's git author. */
  author?: { name: string; email: string };
  /** Brv-Agent: `claude-code`, `webui`, `tui`… */
  agent?: string;
  /** Brv-Session: the curate session. */
  session?: string;
  /** Brv-Model: the model that wrote it (`provider/model`). */
  model?: string;
  /** Brv-Impact: the impact its writer declared. */
  impact?: string;
  operations: ReviewOperation[];
}

/** GET /api/reviews. */
export interface ReviewsResponse {
  tasks: PendingReview[];
  pendingCount: number;
}

/** POST /api/reviews/approve and /reject: the review, and only these topics of it when given. */
export interface DecisionBody {
  id: string;
  topics?: string[];
  /** Approve only: approve a merge review whose topics still carry conflict notes. */
  keepBoth?: boolean;
}

/** POST /api/reviews/approve and /reject (a reject that conflicts is a 409 `reject-conflict`: RejectConflictDetail). */
export interface ReviewDecision {
  decision: 'approved' | 'rejected';
  taskId: string;
  files: Array<{ path: string; reverted: boolean }>;
  totalCount: number;
  commit?: string;
  remaining: string[];
  conflicts: string[];
  review?: OpenedReview;
}

/** The `error` of a 409 `reject-conflict`: the topics that conflicted, and the merge review that finishes it. */
export interface RejectConflictDetail {
  conflicts: string[];
  review?: string;
}

/** A section of a merge review's topic kept twice. */
export interface SectionConflict {
  /** `bv-rule#r1`, `title`… (what POST /api/reviews/resolve takes as `section`). */
  section: string;
  reason: string;
  /** Each side's canonical HTML: text to show, never markup to insert. */
  ours?: string;
  theirs?: string;
  /** Each side as the dashboard may show it: sanitised display HTML and rendered markdown. */
  oursDisplay?: { html: string; markdown: string };
  theirsDisplay?: { html: string; markdown: string };
}

/** Why an incoming change is held (src/vc/removal.ts HoldKind): it removes too much, or its author is not trusted. */
export type HoldKind = 'removal' | 'untrusted';

/** A held incoming change (src/vc/removal.ts): where it comes from, and the topics it would delete or empty. */
export interface HoldDetails {
  source: string;
  branch: string;
  incoming: string;
  topics: number;
  deleted: string[];
  emptied: string[];
  kind: HoldKind;
  untrusted: string[];
  reason: string;
}

/** GET /api/reviews/conflicts?id=…. */
export interface ConflictsResponse {
  taskId: string;
  subject: string;
  topics: Array<{ path: string; filePath: string; conflicts: SectionConflict[]; problem?: TopicProblem }>;
  hold?: HoldDetails;
}

export type ResolveSide = 'ours' | 'theirs' | 'both';

/** POST /api/reviews/resolve: every conflict of the topic, or one section. */
export interface ResolveBody {
  id: string;
  topic: string;
  side: ResolveSide;
  section?: string;
}

/** POST /api/reviews/resolve. */
export interface ResolveResponse {
  taskId: string;
  path: string;
  side: ResolveSide;
  resolved: string[];
  remaining: string[];
  commit?: string;
}

export type DecisionType = 'approve' | 'reject';

/** POST /api/reviews/batch: 1 to 100 decisions, applied in order, each on its own. */
export interface BatchBody {
  decisions: Array<DecisionBody & { decision: DecisionType }>;
}

/** POST /api/reviews/batch: each decision's result or error, in the order sent. */
export interface BatchResponse {
  results: Array<
    | { id: string; decision: DecisionType; ok: true; result: ReviewDecision }
    | { id: string; decision: DecisionType; ok: false; error: ApiFailure }
  >;
}

// ---- Diffs, editing (src/web/manage-routes.ts) ----

/** GET /api/topic/diff?path=…&from=…[&to=…]: the diff of the topic's rendered markdown. */
export interface TopicDiffResponse {
  path: string;
  from: string;
  to: string;
  status: 'added' | 'removed' | 'changed' | 'unchanged';
  diff: string;
}

/** GET /api/commit?rev=…: a commit with the diffs of the first 100 topics it changed. */
export interface CommitResponse {
  commit: string;
  parents: string[];
  time: string;
  author: string;
  subject: string;
  meta: CommitMeta;
  changes: Array<{ path: string; status: 'added' | 'removed' | 'changed'; diff: string; problem?: TopicProblem }>;
  changesOmitted?: number;
}

/** GET /api/edit?path=…: the topic opened for editing; `version` is what PUT compares with. */
export interface EditResponse {
  path: string;
  html: string;
  version: string;
  commit: string;
}

/** PUT /api/edit. */
export interface EditBody {
  path: string;
  html: string;
  version: string;
}

/** PUT /api/edit: saved (a gated change: its review), or unchanged. Refused: EditConflictDetail, EditInvalidDetail. */
export type EditSaveResponse = { status: 'unchanged' } | { status: 'saved'; commit?: string; review?: OpenedReview };

/** The `error` of a 409 `edit-conflict`: the topic as it is now (null: removed). */
export interface EditConflictDetail {
  current: { html: string; version: string } | null;
}

/** One problem the validator found in a saved topic. */
export interface ValidationProblem {
  kind: string;
  message: string;
  tag?: string;
  attribute?: string;
  line?: number;
  column?: number;
}

/** The `error` of a 422 `invalid-topic` (or `edit-path-changed`). */
export interface EditInvalidDetail {
  errors: ValidationProblem[];
}

// ---- Branches and sync ----

/** GET /api/branches. */
export interface BranchesResponse {
  current: string;
  branches: Array<{
    name: string;
    tip: string;
    current: boolean;
    /** A remote-tracking branch: its remote. */
    remote?: string;
    /** A local branch with an upstream: `<remote>/<branch>`, and how far apart they are. */
    upstream?: string;
    ahead?: number;
    behind?: number;
  }>;
  remotes: Array<{ name: string; url: string }>;
  worktrees: Array<{ path: string; branch: string | null; gitBranch: string | null; current: boolean }>;
}

/** POST /api/sync/{fetch,pull,push,sync} (an empty body too). */
export interface SyncBody {
  remote?: string;
}

/** A remote tip fetch did not take. */
export interface RefusedTip {
  ref: string;
  commit: string;
  kind: string;
  message: string;
}

export interface FetchResult {
  remote: string;
  branches: Array<{ branch: string; commit: string }>;
  reviews: { opened: string[]; closed: string[] };
  refused: RefusedTip[];
  layoutFound?: 'refs' | 'branches';
}

/** POST /api/sync/fetch. */
export interface FetchResponse extends FetchResult {
  createdBranches: string[];
  tracked?: string[];
}

/** What taking the remote's knowledge did to the branch. */
export interface IncomingResult {
  status: 'up-to-date' | 'fast-forward' | 'merged' | 'held' | 'diverged';
  commit?: string;
  merged: string[];
  conflicts: string[];
  removed: { deleted: string[]; emptied: string[] };
  review?: OpenedReview;
  held?: {
    id: string;
    commit: string;
    incoming: string;
    source: string;
    rule: string;
    topics: number;
    opened: boolean;
    kind: HoldKind;
    untrusted?: Array<{ commit: string; author: string; signer?: string; key?: string; why: string }>;
  };
}

/** POST /api/sync/pull. */
export interface PullResponse {
  remote: string;
  branch: string;
  fetch: FetchResult;
  merge: IncomingResult;
  tracked?: string[];
}

/** POST /api/sync/push. */
export interface PushResponse {
  remote: string;
  branch: string;
  refs: Array<{ ref: string; remoteRef?: string; status: 'ok' | 'up-to-date' | 'rejected'; summary: string }>;
  upstreamSet: boolean;
  skipped?: 'held';
}

/** POST /api/sync/sync. */
export interface SyncResponse {
  remote: string;
  branch: string;
  sources: Array<{ alias: string; commit?: string; error?: string }>;
  fetch: FetchResult;
  /** Absent: nothing to merge. */
  merge?: IncomingResult;
  push: PushResponse;
  attempts: number;
  tracked?: string[];
}

/** A step of a running fetch, pull, push or sync. */
export interface SyncProgress {
  step: 'fetch' | 'merge' | 'push';
  remote: string;
  branch: string;
  attempt: number;
  /** git's transfer within the step; absent on the step's first report. */
  transfer?: { phase: string; remote: boolean; done: number; total?: number };
}

/**
 * One line of a sync operation's answer to `Accept: application/x-ndjson` (src/web/progress-stream.ts): progress
 * lines, then the result (the plain answer's JSON) or the error with the status the plain answer would have had.
 */
export type SyncStreamLine<Result> =
  ({ type: 'progress' } & SyncProgress) | { type: 'result'; result: Result } | { type: 'error'; status: number; error: ApiFailure };

// ---- Setup: settings, hooks, connectors, doctor ----

/** A part of GET /api/setup: its value, or the error that kept it from being read. */
export type SetupPart<T> = T | { error: ApiFailure };

export type SettingValue = string | number | boolean;

export interface Setting {
  key: string;
  value: SettingValue;
  default: SettingValue;
  source: 'default' | 'repository' | 'global';
  type: 'string' | 'bool' | 'int' | 'enum';
  description: string;
  choices?: readonly string[];
  /** An int setting's bounds. */
  min?: number;
  max?: number;
  /** A stored value brv does not understand (it behaves as the default). */
  invalid?: string;
}

export type HookName = 'post-merge' | 'post-checkout' | 'pre-commit';

export interface HooksStatus {
  hooksPathSet: boolean;
  preCommit: 'warn' | 'block';
  brvOnPath: boolean;
  hooksDirectory: string;
  hooksPath: string | null;
  hooks: Array<{
    name: HookName;
    path: string;
    state: 'installed' | 'not-installed' | 'outdated' | 'foreign';
    exists: boolean;
    executable: boolean;
    interpreter?: string;
    symlink: boolean;
  }>;
  notes: string[];
}

export type ConnectorType = 'agent' | 'rules' | 'mcp' | 'skill' | 'hook';
export type ConnectorScope = 'project' | 'global';

/** An agent brv can connect, and the connector types it takes. */
export interface AgentInfo {
  id: string;
  name: string;
  aliases: string[];
  defaultType: ConnectorType;
  types: Array<{
    type: ConnectorType;
    default: boolean;
    project: string[] | null;
    global: string[] | null;
    manual?: { guide: string; where: string };
  }>;
}

export interface ConnectorsStatus {
  agents: AgentInfo[];
  scopes: Array<{ scope: ConnectorScope; root: string }>;
  connectors: Array<{
    agent: string;
    name: string;
    type: ConnectorType;
    scope: ConnectorScope;
    root: string;
    state: 'installed' | 'outdated' | 'error';
    files: Array<{ path: string; target: string; state: 'installed' | 'outdated' | 'error' | 'absent' }>;
    error?: ApiFailure;
  }>;
}

export interface DoctorReport {
  ok: boolean;
  checks: Array<{ name: string; status: 'ok' | 'warn' | 'fail'; message: string; fix?: string }>;
}

/** GET /api/setup: each part on its own (one failing leaves the others). */
export interface SetupResponse {
  settings: SetupPart<Setting[]>;
  hooks: SetupPart<HooksStatus>;
  connectors: SetupPart<ConnectorsStatus>;
  doctor: SetupPart<DoctorReport>;
}

/** PUT /api/settings. */
export interface SettingBody {
  key: string;
  value: SettingValue;
}

/** PUT /api/settings. */
export interface SettingResponse {
  key: string;
  value: SettingValue;
  scope: 'repository' | 'global';
}

/** POST /api/hooks/install and /uninstall: these hooks (default all). */
export interface HooksBody {
  hooks?: string[];
}

/** What adopting the remote's knowledge did (hooks and connector installs in a clone that has none yet). */
export interface AdoptResult {
  remote: string;
  branch: string;
  fetched: boolean;
  commit?: string;
  createdBranches: string[];
  tracked?: string[];
  failed?: ApiFailure;
  refused?: ApiFailure;
}

/** POST /api/hooks/install. */
export interface HooksInstallResponse {
  hooksDirectory: string;
  hooksPath: string | null;
  hooks: Array<{
    name: HookName;
    path: string;
    action: 'added' | 'unchanged' | 'created' | 'updated' | 'skipped';
    reason?: string;
    chain?: string;
    note?: string;
  }>;
  notes: string[];
  tracking?: { remote: string; added: string[] };
  adopted?: AdoptResult;
}

/** POST /api/hooks/uninstall. */
export interface HooksUninstallResponse {
  hooksDirectory: string;
  hooksPath: string | null;
  hooks: Array<{ name: HookName; path: string; action: 'removed' | 'not-installed' | 'skipped' | 'deleted'; reason?: string }>;
  notes: string[];
}

/** POST /api/connectors/install and /uninstall: an agent's connector (its default type without `type`). */
export interface ConnectorBody {
  agent: string;
  type?: ConnectorType;
}

export interface FileChange {
  path: string;
  target: string;
  action: 'added' | 'removed' | 'unchanged' | 'not-installed' | 'created' | 'updated' | 'deleted' | 'kept';
  note?: string;
}

/** What to do by hand for a connector brv cannot write itself. */
export interface ManualInstructions {
  guide: string;
  where: string;
  config: string;
}

/** POST /api/connectors/install. */
export interface ConnectorInstallResponse {
  agent: string;
  name: string;
  type: ConnectorType;
  scope: ConnectorScope;
  root: string;
  status: 'unchanged' | 'installed' | 'updated' | 'manual';
  changes: FileChange[];
  manual?: ManualInstructions;
  adopted?: AdoptResult;
}

/** POST /api/connectors/uninstall. */
export interface ConnectorUninstallResponse {
  agent: string;
  name: string;
  scope: ConnectorScope;
  root: string;
  status: 'removed' | 'not-installed' | 'manual' | 'kept';
  types: Array<{
    type: ConnectorType;
    status: 'removed' | 'not-installed' | 'manual' | 'kept';
    changes: FileChange[];
    manual?: ManualInstructions;
  }>;
  removedDirectories: string[];
}

// ---- Creating, deleting, asking, dreaming, branch actions, model providers (src/web/action-routes.ts) ----

/** GET /api/curate/form: the New topic form's fields and kinds (the TUI's guided `/curate`, src/views/curate-form.ts). */
export interface CurateFormResponse {
  fields: Array<{ name: string; label: string; hint: string }>;
  kinds: Array<{ label: string }>;
}

/** The New topic form's values; `kind` indexes CurateFormResponse.kinds. */
export interface CurateFormValues {
  path: string;
  title: string;
  summary: string;
  kind: number;
  text: string;
  reason: string;
}

/** POST /api/curate/check: the form checked by curate's validator, nothing written. */
export interface CurateCheckBody {
  form: CurateFormValues;
}

/** POST /api/curate/check: what the form still lacks (`gap`), else the topic it makes and what the validator says of it. */
export interface CurateCheckResponse {
  gap: string | null;
  html: string | null;
  path: string | null;
  warnings: string[];
  errors: ValidationProblem[];
}

/** POST /api/topics: a new topic from the form, or as topic HTML; `overwrite` replaces one at its path. */
export interface CreateTopicBody {
  form?: CurateFormValues;
  html?: string;
  /** With `html`: the meta curate records (`{ "reason": … }`). */
  reason?: string;
  overwrite?: boolean;
}

/** POST /api/topics (refused: 409 `path-exists`, or 422 `invalid-topic` with EditInvalidDetail). */
export interface CreateTopicResponse {
  status: 'written' | 'unchanged';
  path: string;
  type: string;
  commit: string | null;
  warnings: string[];
  review?: OpenedReview;
}

/** POST /api/topics/remove: a topic (a folder's topics with `recursive`), as `brv rm`. */
export interface RemoveTopicBody {
  path: string;
  recursive?: boolean;
  reason?: string;
}

/** POST /api/topics/remove. */
export interface RemoveTopicResponse {
  removed: string[];
  commit: string;
}

/** POST /api/ask: `brv query --answer`. */
export interface AskBody {
  question: string;
  /** Topics retrieved (default 5). */
  limit?: number;
}

/**
 * POST /api/ask: the model's answer with the topics it cites, and the topics retrieval found. Without a model
 * (or when it fails) `answer` is null and `note` says why and how to fix it: the topics are still there.
 */
export interface AskResponse {
  question: string;
  answer: string | null;
  citations: string[];
  notInKnowledge: boolean;
  topics: Array<{ path: string; title: string; score: number; excerpt: string; source?: string }>;
  model: { provider: string; model: string } | null;
  note: ApiFailure | null;
}

/** POST /api/dream: `brv dream` (kinds: link, merge, prune, stale, synthesize). */
export interface DreamBody {
  scope?: string;
  kinds?: string[];
  max?: number;
  dryRun?: boolean;
}

/** POST /api/dream: the proposals, held on a review (never on the branch), and `brv dream`'s own text. */
export interface DreamResponse {
  text: string;
  topics: number;
  candidates: number;
  proposals: Array<{ type: string; why: string; changes: Array<{ path: string; action: 'add' | 'update' | 'remove' }> }>;
  notes: string[];
  dryRun: boolean;
  review: { id: string; commit: string } | null;
}

/** POST /api/branches/create: a new brv branch at the current tip (or `start`). */
export interface CreateBranchBody {
  name: string;
  start?: string;
}

/** POST /api/branches/create. */
export interface CreateBranchResponse {
  branch: string;
  commit: string;
}

/** POST /api/branches/checkout: make `name` this worktree's brv branch (`create`: new, from the current tip). */
export interface CheckoutBody {
  name: string;
  create?: boolean;
}

/** POST /api/branches/checkout. */
export interface CheckoutResponse {
  branch: string;
  previous: string | null;
  created: boolean;
  commit: string | null;
}

/** POST /api/branches/merge: another brv branch (local, or `<remote>/<branch>`) into the current one. */
export interface MergeBody {
  source: string;
}

/** POST /api/branches/merge (conflicts: kept in the topics, with the review that settles them). */
export interface MergeResponse {
  status: 'up-to-date' | 'fast-forward' | 'merged' | 'held' | 'diverged';
  commit: string;
  merged: string[];
  conflicts: string[];
  review?: OpenedReview;
}

/** A model provider as `brv providers list` shows it: where its key comes from, never the key. */
export interface ProviderEntry {
  id: string;
  name: string;
  connected: boolean;
  active: boolean;
  model: string;
  baseUrl?: string;
  embeddingModel?: string;
  key: { from: string; source: string };
  keyOptional: boolean;
  keyVariables: readonly string[];
}

/** GET /api/providers. */
export interface ProvidersResponse {
  providers: ProviderEntry[];
  active?: { provider: string; model: string; from: 'env' | 'config' };
  configFile: string;
  credentialsFile: string;
}

/** GET /api/providers/models[?provider=…]: the models to choose from (default: the provider in use). */
export interface ModelsResponse {
  provider: string;
  current: string;
  embeddingModel?: string;
  defaultEmbeddingModel?: string;
  models: Array<{ id: string; current: boolean; price?: { input: number; output: number } }>;
}

/** POST /api/providers/connect: the key is stored outside any repository and never sent back. */
export interface ConnectProviderBody {
  provider: string;
  model?: string;
  baseUrl?: string;
  apiKey?: string;
  embeddingModel?: string;
}

/** POST /api/providers/connect. */
export interface ConnectProviderResponse {
  provider: ProviderEntry;
  keyStoredIn?: string;
  warnings: string[];
}

/** POST /api/providers/model: the chat model (or with `embedding`, the embedding model) of a connected provider. */
export interface ModelBody {
  model: string;
  provider?: string;
  embedding?: boolean;
}

/** POST /api/providers/switch and /disconnect. */
export interface ProviderBody {
  provider: string;
}

/** POST /api/providers/disconnect. */
export interface DisconnectProviderResponse {
  provider: string;
  wasActive: boolean;
  keyRemoved: boolean;
}

// ---- Live events ----

/** What a moved `refs/brv/*` ref names (src/base/ref-names.ts): the client never parses ref names. */
export type ChangedRef =
  | { kind: 'branch'; branch: string }
  | { kind: 'review'; review: string; action: 'opened' | 'updated' | 'closed' }
  | { kind: 'remote'; remote: string; branch: string }
  | { kind: 'remote'; remote: string; review: string }
  | { kind: 'source'; source: string; branch: string }
  | { kind: 'other' };

/** The data of one `event: change` of GET /api/events (text/event-stream, src/web/events.ts): a ref moved. */
export type ChangeEvent = {
  /** Increasing from 1 per server start (also the SSE id). */
  id: number;
  /** The full ref name, for display only. */
  ref: string;
  /** null: the ref was created. */
  from: string | null;
  /** null: the ref was deleted. */
  to: string | null;
  time: string;
} & ChangedRef;

/** Every endpoint: path → method → the answer's JSON. (GET /api/events is a text/event-stream: src/web/events.ts.) */
export interface ApiRoutes {
  '/api/status': { GET: StatusResponse };
  '/api/topic': { GET: TopicResponse };
  '/api/topic/history': { GET: HistoryResponse };
  '/api/search': { GET: SearchResponse };
  '/api/changes': { GET: HistoryResponse };
  '/api/tree': { GET: TreeResponse };
  '/api/topic/links': { GET: TopicLinksResponse };
  '/api/sources': { GET: SourcesResponse };
  '/api/reviews': { GET: ReviewsResponse };
  '/api/reviews/approve': { POST: ReviewDecision };
  '/api/reviews/reject': { POST: ReviewDecision };
  '/api/reviews/conflicts': { GET: ConflictsResponse };
  '/api/reviews/resolve': { POST: ResolveResponse };
  '/api/reviews/batch': { POST: BatchResponse };
  '/api/topic/diff': { GET: TopicDiffResponse };
  '/api/commit': { GET: CommitResponse };
  '/api/edit': { GET: EditResponse; PUT: EditSaveResponse };
  '/api/branches': { GET: BranchesResponse };
  '/api/sync/fetch': { POST: FetchResponse };
  '/api/sync/pull': { POST: PullResponse };
  '/api/sync/push': { POST: PushResponse };
  '/api/sync/sync': { POST: SyncResponse };
  '/api/setup': { GET: SetupResponse };
  '/api/settings': { PUT: SettingResponse };
  '/api/hooks/install': { POST: HooksInstallResponse };
  '/api/hooks/uninstall': { POST: HooksUninstallResponse };
  '/api/connectors/install': { POST: ConnectorInstallResponse };
  '/api/connectors/uninstall': { POST: ConnectorUninstallResponse };
  '/api/curate/form': { GET: CurateFormResponse };
  '/api/curate/check': { POST: CurateCheckResponse };
  '/api/topics': { POST: CreateTopicResponse };
  '/api/topics/remove': { POST: RemoveTopicResponse };
  '/api/ask': { POST: AskResponse };
  '/api/dream': { POST: DreamResponse };
  '/api/branches/create': { POST: CreateBranchResponse };
  '/api/branches/checkout': { POST: CheckoutResponse };
  '/api/branches/merge': { POST: MergeResponse };
  '/api/providers': { GET: ProvidersResponse };
  '/api/providers/models': { GET: ModelsResponse };
  '/api/providers/connect': { POST: ConnectProviderResponse };
  '/api/providers/model': { POST: ProviderEntry };
  '/api/providers/switch': { POST: ProviderEntry };
  '/api/providers/disconnect': { POST: DisconnectProviderResponse };
}

/** The endpoints that stream their progress to `Accept: application/x-ndjson` (lines: SyncStreamLine). */
export type StreamingRoute = '/api/sync/fetch' | '/api/sync/pull' | '/api/sync/push' | '/api/sync/sync';

/** Every request body: path → method → the JSON it takes. */
export interface ApiBodies {
  '/api/reviews/approve': { POST: DecisionBody };
  '/api/reviews/reject': { POST: Omit<DecisionBody, 'keepBoth'> };
  '/api/reviews/resolve': { POST: ResolveBody };
  '/api/reviews/batch': { POST: BatchBody };
  '/api/edit': { PUT: EditBody };
  '/api/sync/fetch': { POST: SyncBody };
  '/api/sync/pull': { POST: SyncBody };
  '/api/sync/push': { POST: SyncBody };
  '/api/sync/sync': { POST: SyncBody };
  '/api/settings': { PUT: SettingBody };
  '/api/hooks/install': { POST: HooksBody };
  '/api/hooks/uninstall': { POST: HooksBody };
  '/api/connectors/install': { POST: ConnectorBody };
  '/api/connectors/uninstall': { POST: ConnectorBody };
  '/api/curate/check': { POST: CurateCheckBody };
  '/api/topics': { POST: CreateTopicBody };
  '/api/topics/remove': { POST: RemoveTopicBody };
  '/api/ask': { POST: AskBody };
  '/api/dream': { POST: DreamBody };
  '/api/branches/create': { POST: CreateBranchBody };
  '/api/branches/checkout': { POST: CheckoutBody };
  '/api/branches/merge': { POST: MergeBody };
  '/api/providers/connect': { POST: ConnectProviderBody };
  '/api/providers/model': { POST: ModelBody };
  '/api/providers/switch': { POST: ProviderBody };
  '/api/providers/disconnect': { POST: ProviderBody };
}
