import { BrvError } from '../base/errors.js';
import type { Repair } from '../byterover/repair.js';
import type { ImportedTopic, SkippedFile } from '../byterover/tree.js';
import type { CurateEnvelope, CurateError } from '../curate/envelope.js';
import type { ExportResult as ExportedTree } from '../byterover/export.js';
import type { ImportResult as ImportedCommit } from '../byterover/import.js';
import type { CurateRequest as ProtocolRequest } from '../curate/protocol.js';
import type { WriteResult } from '../curate/write-topic.js';
import type { CurateAutoEvent } from '../curate/auto.js';
import type { SkippedMention } from '../curate/attachments.js';
import type { LlmUsage } from '../models/llm/client.js';
import type { OpenedTopic, SavedEdit } from '../curate/edit-topic.js';
import type { DreamKind, DreamOutcome, DreamStep } from '../models/dream/dream.js';
import { normalizeTopicPath, topicBlobPath, topicPathFromBlobPath } from '../topic/path.js';
import type { RepositoryContext } from './context.js';
import type { Actor } from './host.js';
import { absolute } from './paths.js';

export interface DreamRequest {
  /** Only topics in this folder (`security`). */
  scope?: string;
  /** What to look for (default: all of link, merge, prune, stale, synthesize). */
  kinds?: DreamKind[];
  /** At most this many candidates, strongest first (default 50). */
  max?: number;
  /** Find and show; record nothing and ask no model. */
  dryRun?: boolean;
  signal?: AbortSignal;
  /** Long runs: the step (read, compare, history, model, write) and how far. */
  onProgress?: (step: DreamStep, done: number, total?: number) => void;
}

/** The candidates, the proposals and their held review (`review.id` for brv review approve|reject), and the model's usage when one was asked. */
export interface DreamResult extends DreamOutcome {
  usage?: LlmUsage;
}

export { DREAM_KINDS } from '../models/dream/kinds.js';
export type { DreamKind } from '../models/dream/dream.js';

/** One step of the curate protocol (`brv curate`): kickoff, a response, or the one-shot `htmlFile`. */
export type CurateRequest = ProtocolRequest;
/** The curate envelope (ByteRover's shape): the next prompt, or what was written, or the errors. */
export type CurateResult = CurateEnvelope;

/** Self-driven curate (`brv curate` with a model connected, `--auto`): brv runs its own protocol with the model. */
export interface CurateAutoRequest {
  /** What to record; `@path` words naming files inside the work tree attach them (never secrets, never outside it). */
  intent: string;
  /** Files to attach (absolute, resolved by the front end): at most 5 in all, 40,000 characters each, text only. */
  files?: string[];
  /** Allow replacing an existing topic at the path the model chooses. */
  overwrite?: boolean;
  /** Cancels the run (Ctrl-C): `llm-cancelled`, nothing written, the session removed. */
  signal?: AbortSignal;
  onProgress?: (event: CurateAutoProgress) => void;
}

/** Progress of a self-driven curate: a model call starting (`step`, attempt n of 4, the errors it corrects), characters received, writing. */
export type CurateAutoProgress = CurateAutoEvent;

/** The protocol's envelope (done, or failed with its error kinds), plus what the run cost and attached. */
export type CurateAutoResult = CurateEnvelope & {
  usage: LlmUsage;
  /** Model calls made (at most 4). */
  attempts: number;
  /** The attached files, as shown to the model (relative to the work tree when inside it). */
  attached: string[];
  /** `@` mentions that were not attached, and why. */
  skipped: SkippedMention[];
};

/** The connected model, if any (no SDK loaded to answer). */
export interface ModelConnection {
  provider: string;
  model: string;
}

/** MCP's one-shot write: a whole topic and its optional meta, no session. */
export interface CurateHtmlRequest {
  html: string;
  /** The meta object (`{ reason, type, … }`) as the client sent it: checked here. */
  meta?: unknown;
  /** Replace an existing topic at the same path. */
  overwrite?: boolean;
}

export type CurateHtmlResult = WriteResult | { ok: false; errors: CurateError[] };

export interface CheckHtmlRequest {
  html: string;
}

/** What curate would say of a topic, without writing it: its path and warnings, or every error. */
export type CheckHtmlResult = { ok: true; topicPath: string; warnings: string[] } | { ok: false; errors: CurateError[] };

export interface ReadRequest {
  /** The topic path (`security/auth`; `.html` and `.md` suffixes accepted). */
  path: string;
  /** The stored HTML instead of the markdown rendering. */
  raw?: boolean;
  /** A revision of the brv branch (`HEAD~2`, a commit, a brv branch) instead of its tip. */
  at?: string;
  /** A knowledge source's alias (`brv source list`): the topic from its fetched knowledge; not with `at`. */
  source?: string;
}

export interface ReadResult {
  path: string;
  topicPath: string;
  format: 'markdown' | 'html';
  content: string;
  commit: string;
}

export interface ListRequest {
  /** A folder of topics; every topic without one. */
  prefix?: string;
  at?: string;
}

export interface ListResult {
  prefix: string;
  commit: string | undefined;
  topics: string[];
}

export interface RemoveRequest {
  path: string;
  /** Every topic under a folder. */
  recursive?: boolean;
  /** Recorded in the commit (Brv-Reason trailer). */
  reason?: string;
}

export interface RemoveResult {
  removed: string[];
  commit: string;
}

export interface ImportRequest {
  /** A ByteRover project, its `.brv/` or the context tree itself (absolute). */
  directory: string;
  /** Replace topics that already exist with different content. */
  overwrite?: boolean;
  /** Import the valid topics and report the rest, instead of importing nothing. */
  skipInvalid?: boolean;
  /** Validate and report what would be written (added, updated, unchanged, repairs, problems), writing nothing. */
  dryRun?: boolean;
  /** Called as topics are validated (`validated` of `total`), for progress on large trees. */
  onProgress?: (validated: number, total: number) => void;
}

export interface ImportResult extends ImportedCommit {
  /** The context-tree folder read. */
  source: string;
  imported: ImportedTopic[];
  converted: ImportedTopic[];
  skipped: SkippedFile[];
  /** Every topic that was repaired to be accepted as ByteRover accepted it, with its repairs (also on each topic). */
  repaired: Array<{ file: string; relative: string; path: string; repairs: Repair[] }>;
}

export interface ExportRequest {
  /** Where the tree is written (absolute). */
  directory: string;
  /** Replace a non-empty tree there (hidden entries such as `.git/` are kept). */
  force?: boolean;
  at?: string;
  /** Progress as topics are written: `done` of `total`. */
  onProgress?: (done: number, total?: number) => void;
}

export interface ExportResult extends ExportedTree {
  commit: string | undefined;
}

export interface EditOpenRequest {
  /** The topic path (`security/auth`; `.html` accepted). */
  path: string;
}

/** A topic opened for editing: its stored HTML and the version a save must still find. */
export type EditOpenResult = OpenedTopic;

export interface EditSaveRequest {
  path: string;
  /** The edited topic HTML. */
  html: string;
  /** `version` from editOpen: the save is refused (`edit-conflict`) if the topic changed since. */
  version: string;
}

/** Saved (or `unchanged`: nothing committed), or the validation errors to show the person. */
export type EditSaveResult = SavedEdit;

export interface EditInEditorRequest {
  path: string;
  /** The editor to run, as shell text like git's core.editor (`vi`, `code --wait`): the front end's choice. */
  editor: string;
  /** An absolute folder for the file being edited (a folder is made in it and removed afterwards). */
  tempRoot: string;
}

export interface KeepTextRequest {
  path: string;
  html: string;
}

/** The topics themselves: curate, read, list, remove, and moving whole trees in and out (ByteRover's layout). */
export class Knowledge {
  constructor(private readonly ctx: RepositoryContext) {}

  async curate(request: CurateRequest, actor: Actor): Promise<CurateResult> {
    // Loaded on demand: HTML parsing is the heaviest code in brv and most commands never need it.
    const { runCurate } = await import('../curate/protocol.js');
    // Written on top of what was fetched (as a read would see it), not beside it: fewer divergences for brv sync to merge.
    await this.ctx.arrive();
    const { store, sessions, branch } = this.ctx;
    return runCurate({ store, sessions, branch, agent: actor.agent }, request);
  }

  /** Whether a model is connected (front ends choose self-driven curate by it); reads one small file, loads no SDK. */
  async modelConnection(): Promise<ModelConnection | undefined> {
    const active = await this.ctx.llmConnection();
    return active && { provider: active.connection.provider, model: active.connection.model };
  }

  /**
   * Self-driven curate: the curate protocol end to end with the connected model in the agent's place
   * (the same prompts, parser, validator, writer, review policy and retry cap); see runCurateAuto.
   * No model connected: `no-provider`. Cancelled through `signal`: `llm-cancelled`, nothing written.
   */
  async curateAuto(request: CurateAutoRequest, actor: Actor): Promise<CurateAutoResult> {
    const client = await this.ctx.llm();
    if (!client) {
      throw new BrvError(
        'no-provider',
        'Self-driven curate needs a model and none is connected: brv providers connect <provider> (or set BRV_LLM_PROVIDER), or curate through your agent without --auto.',
      );
    }
    const [{ runCurateAuto }, { collectAttachments }] = await Promise.all([
      import('../curate/auto.js'),
      import('../curate/attachments.js'),
    ]);
    const { location } = this.ctx.repo;
    const files = (request.files ?? []).map((file) => absolute(file, 'An attached file'));
    const collected = await collectAttachments({
      files,
      intent: request.intent,
      workTree: location.workTree,
      gitDirs: [location.gitDir, location.commonDir],
    });
    const extra = (attempts: number) => ({
      usage: client.usage(),
      attempts,
      attached: collected.ok ? collected.attachments.map((a) => a.path) : [],
      skipped: collected.ok ? collected.skipped : [],
    });
    if (!collected.ok) return { ok: false, status: 'failed', errors: [{ kind: collected.kind, message: collected.message }], ...extra(0) };
    const { store, sessions, branch } = this.ctx;
    const model = `${client.identity.provider}/${client.identity.model}`;
    const { envelope, attempts } = await runCurateAuto({ store, sessions, branch, agent: actor.agent, model }, client, {
      intent: request.intent,
      attachments: collected.attachments,
      overwrite: request.overwrite ?? false,
      signal: request.signal,
      onProgress: request.onProgress,
    });
    // The run's session is gone whatever happened: no id to continue with.
    const { sessionId: _gone, ...rest } = envelope;
    return { ...rest, ...extra(attempts) };
  }

  /** The one-shot write behind MCP's brv-curate: the same validator and writer as `brv curate`. */
  async curateHtml(request: CurateHtmlRequest, actor: Actor): Promise<CurateHtmlResult> {
    const [{ writeTopic }, { parseMeta, MAX_RESPONSE_BYTES }] = await Promise.all([
      import('../curate/write-topic.js'),
      import('../curate/envelope.js'),
    ]);
    // The same bound `brv curate --html-file` puts on the file it reads.
    if (Buffer.byteLength(request.html, 'utf8') > MAX_RESPONSE_BYTES) {
      return { ok: false, errors: [{ kind: 'too-large', message: `The topic is larger than ${MAX_RESPONSE_BYTES} bytes; split it.` }] };
    }
    const parsed = parseMeta(request.meta);
    if (!parsed.ok) return { ok: false, errors: [{ kind: 'invalid-response-format', message: parsed.message }] };
    await this.ctx.arrive();
    return writeTopic(this.ctx.store, request.html, parsed.meta, {
      branch: this.ctx.branch,
      overwrite: request.overwrite ?? false,
      agent: actor.agent ?? 'mcp',
    });
  }

  /** Checks topic HTML with the validator curate uses, writing nothing (a form that validates as you type). */
  async checkHtml(request: CheckHtmlRequest): Promise<CheckHtmlResult> {
    const { validateTopicHtml } = await import('../topic/validate.js');
    const result = validateTopicHtml(request.html);
    return result.ok
      ? { ok: true, topicPath: result.topic.path, warnings: [...result.topic.warnings] }
      : { ok: false, errors: result.errors.map((e) => ({ ...e })) };
  }

  /** One topic, rendered as markdown for agents or as its stored HTML. */
  async read(request: ReadRequest): Promise<ReadResult> {
    const normalized = normalizeTopicPath(request.path);
    if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
    const snapshot = await this.ctx.readSnapshot(request);
    const filePath = topicBlobPath(normalized.path);
    const { MAX_STORED_TOPIC_BYTES, renderStoredTopic } = await import('../topic/stored.js');
    const blob = await this.ctx.store.readFile(snapshot, filePath, { maxBytes: MAX_STORED_TOPIC_BYTES });
    if (!blob) {
      const hint =
        (await this.ctx.store.pathKind(snapshot, normalized.path)) === 'folder'
          ? ` It is a folder: list it with brv ls ${normalized.path}.`
          : ' List topics with brv ls.';
      const where = request.at ? ` at ${request.at}` : request.source !== undefined ? ` in knowledge source ${request.source}` : '';
      throw new BrvError('not-found', `No topic at ${normalized.path}${where}.${hint}`);
    }
    const html = blob.toString('utf8');
    const [format, content] = request.raw ? (['html', html] as const) : (['markdown', renderStoredTopic(html)] as const);
    return { path: filePath, topicPath: normalized.path, format, content, commit: snapshot.commit!.oid };
  }

  /** Topic paths under a folder prefix (all topics without one). */
  async list(request: ListRequest = {}): Promise<ListResult> {
    let folder = '';
    const prefix = request.prefix?.replace(/\/+$/, '');
    if (prefix) {
      const normalized = normalizeTopicPath(prefix);
      if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
      folder = `${normalized.path}/`;
    }
    const snapshot = await this.ctx.snapshotFor(request.at);
    const topics = (await this.ctx.store.listFiles(snapshot))
      .filter((f) => f.startsWith(folder))
      .map((f) => topicPathFromBlobPath(f))
      .filter((p): p is NonNullable<typeof p> => p !== undefined);
    return { prefix: folder, commit: snapshot.commit?.oid, topics };
  }

  /** Removes a topic (or, with `recursive`, every topic under a folder) in one DELETE commit. */
  async remove(request: RemoveRequest, actor: Actor): Promise<RemoveResult> {
    const normalized = normalizeTopicPath(request.path.replace(/\/+$/, ''));
    if (!normalized.ok) throw new BrvError(normalized.error.kind, normalized.error.message);
    const topicPath = normalized.path;
    const { store, branch } = this.ctx;
    const outcome = await store.commit<string[]>(branch, async (snapshot) => {
      let target: string;
      let removed: string[];
      if ((await store.pathKind(snapshot, topicBlobPath(topicPath))) === 'file') {
        target = topicBlobPath(topicPath);
        removed = [topicPath];
      } else if ((await store.pathKind(snapshot, topicPath)) === 'folder') {
        if (!request.recursive) {
          throw new BrvError('is-a-folder', `${topicPath} is a folder of topics. Pass --recursive to remove all of them.`);
        }
        target = topicPath;
        removed = (await store.listFiles(snapshot))
          .filter((f) => f.startsWith(`${topicPath}/`))
          .map((f) => topicPathFromBlobPath(f))
          .filter((p): p is NonNullable<typeof p> => p !== undefined);
      } else {
        throw new BrvError('not-found', `No topic at ${topicPath} on brv branch ${branch}. List the topics with brv ls.`);
      }
      return {
        write: {
          edits: [{ path: target, remove: true }],
          subject: `delete: ${topicPath}${removed.length > 1 ? ` (${removed.length} topics)` : ''}`,
          meta: { op: 'delete', type: 'DELETE', reason: request.reason, agent: actor.agent },
        },
        result: removed,
      };
    });
    return { removed: outcome.result, commit: outcome.commit! };
  }

  /** Opens a topic of the branch tip for a person to edit (`brv edit`). */
  async editOpen(request: EditOpenRequest): Promise<EditOpenResult> {
    const { openTopicForEdit } = await import('../curate/edit-topic.js');
    return openTopicForEdit(this.ctx.store, this.ctx.branch, request.path);
  }

  /** Saves an edited topic (`Brv-Op: edit`) by compare-and-swap on the version opened; see saveTopicEdit. */
  async editSave(request: EditSaveRequest, actor: Actor): Promise<EditSaveResult> {
    const { saveTopicEdit } = await import('../curate/edit-topic.js');
    return saveTopicEdit(this.ctx.store, this.ctx.branch, { ...request, agent: actor.agent });
  }

  /**
   * A person edits a topic in their editor (`brv edit`, the TUI's `/edit`): the editor runs with the
   * terminal inherited, the text is saved by compare-and-swap on the version opened, and the file is
   * reopened with the validator's errors while it does not validate (see runEditSession).
   */
  async editInEditor(request: EditInEditorRequest, actor: Actor): Promise<Extract<SavedEdit, { ok: true }>> {
    const [{ runEditSession }, { runEditor }] = await Promise.all([import('../curate/edit-session.js'), import('../proc/editor.js')]);
    const tempRoot = absolute(request.tempRoot, 'tempRoot');
    let topicPath = request.path;
    return runEditSession(tempRoot, {
      open: async () => {
        const opened = await this.editOpen({ path: request.path });
        topicPath = opened.topicPath;
        return opened;
      },
      save: (html, version) => this.editSave({ path: topicPath, html, version }, actor),
      keep: async (html) => (await this.keepEditText({ path: topicPath, html })).file,
      edit: (file) => runEditor(this.ctx.repo.processes, request.editor, file),
    });
  }

  /** Keeps text an edit could not save under `<git-common-dir>/brv/edits/`; returns the file. */
  async keepEditText(request: KeepTextRequest): Promise<{ file: string }> {
    const { keepEditedText } = await import('../curate/edit-topic.js');
    return { file: await keepEditedText(this.ctx.store, request.path, request.html) };
  }

  /**
   * Imports a ByteRover context tree (a project, its `.brv/`, or the tree itself) as one commit: HTML
   * topics as they are, legacy Markdown topics converted, generated files skipped, with a report.
   */
  async importTree(request: ImportRequest, actor: Actor): Promise<ImportResult> {
    const [{ planByteRoverImport }, { commitImport }, { blobObjectId }] = await Promise.all([
      import('../byterover/tree.js'),
      import('../byterover/import.js'),
      import('../git/blob-writer.js'),
    ]);
    // Each topic's blob is written (or, for a dry run, only hashed) as soon as it is read: the plan holds no topic text.
    const { repo } = this.ctx.store;
    const writer = request.dryRun ? undefined : repo.blobWriter();
    const keep = writer
      ? (html: string) => writer.write(html)
      : async (html: string) => blobObjectId(repo.location.objectFormat, Buffer.from(html, 'utf8'));
    let plan;
    try {
      plan = await planByteRoverImport(absolute(request.directory), request.onProgress, keep);
    } catch (error) {
      await writer?.close().catch(() => {});
      throw error;
    }
    await writer?.close();
    const result = await commitImport(this.ctx.store, this.ctx.branch, plan.topics, plan.problems, {
      overwrite: request.overwrite ?? false,
      skipInvalid: request.skipInvalid ?? false,
      dryRun: request.dryRun ?? false,
      source: plan.root,
      agent: actor.agent,
    });
    const repaired = [...plan.imported, ...plan.converted]
      .filter((topic) => topic.repairs.length > 0)
      .map(({ file, relative, path, repairs }) => ({ file, relative, path, repairs }))
      .sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
    return { ...result, source: plan.root, imported: plan.imported, converted: plan.converted, skipped: plan.skipped, repaired };
  }

  /** Writes the context tree (or the tree `at` a revision) as files in ByteRover's layout. */
  async exportTree(request: ExportRequest): Promise<ExportResult> {
    const { exportTree, readTopicBlobs } = await import('../byterover/export.js');
    const snapshot = await this.ctx.snapshotFor(request.at);
    const written = await exportTree(await readTopicBlobs(this.ctx.store, snapshot), absolute(request.directory), {
      force: request.force,
      onProgress: request.onProgress,
    });
    return { ...written, commit: snapshot.commit?.oid };
  }

  /**
   * `brv dream`: consolidation candidates found without a model (merge, link, prune, stale, synthesize),
   * the proposals brv can make (links, removals; merges and overviews with a connected model), recorded
   * as one commit held on a review ref — never on the branch. Without a provider no model code loads.
   */
  async dream(request: DreamRequest, actor: Actor): Promise<DreamResult> {
    const connection = request.dryRun ? undefined : await this.ctx.llmConnection();
    const [{ dream }, client] = await Promise.all([import('../models/dream/dream.js'), connection ? this.ctx.llm() : undefined]);
    const outcome = await dream(this.ctx.store, {
      branch: this.ctx.branch,
      scope: request.scope,
      kinds: request.kinds,
      max: request.max,
      dryRun: request.dryRun,
      agent: actor.agent,
      model: client,
      ...(client ? { modelName: `${client.identity.provider}/${client.identity.model}` } : {}),
      signal: request.signal,
      onProgress: request.onProgress,
    });
    const usage = client?.usage();
    return { ...outcome, ...(usage && usage.requests > 0 ? { usage } : {}) };
  }
}

/** Loads the HTML toolchain ahead of a curate, so that loading overlaps the git process that opens the repository. */
export async function preloadCurate(): Promise<void> {
  await import('../curate/protocol.js');
}
