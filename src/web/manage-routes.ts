import { isBrvError } from '../base/errors.js';
import type { Brv } from '../service/brv.js';
import type { BrvService } from '../service/service.js';
import type { SyncProgress } from '../service/sharing.js';
import { streamProgress, wantsStream } from './progress-stream.js';
import type {
  ConnectorBody,
  ConnectorType,
  EditBody,
  EditConflictDetail,
  EditInvalidDetail,
  HooksBody,
  SettingBody,
  SyncBody,
} from './api-types.js';
import { HttpError, objectBody, queryString, readJsonBody, STREAMED, stringField, type Handler, type TypedRoutes } from './request.js';

/** Recorded as the Brv-Agent trailer of what the dashboard writes. */
const ACTOR = { agent: 'webui' } as const;
/** Topics of one commit shown with their diffs (`changesOmitted` counts the rest). */
const MAX_COMMIT_DIFFS = 100;
const MAX_REVISION = 200;

/** A revision from the query: a commit, brv branch expression, tag or date; never a range or `rev:path`. */
function revisionParam(url: URL, name: string, required: true): string;
function revisionParam(url: URL, name: string, required: false): string | undefined;
function revisionParam(url: URL, name: string, required: boolean): string | undefined {
  const value = required ? queryString(url, name, true) : queryString(url, name);
  if (value === undefined) return undefined;
  if (value === '' || value.length > MAX_REVISION || value.includes('..') || value.includes(':') || value.includes('\0'))
    throw new HttpError(400, 'invalid-revision', `${name} must be one revision (a commit, a brv branch like main~2, a tag or a date).`);
  return value;
}

/** A revision that does not resolve is bad input here (400), with the service's kind and message. */
async function resolving<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (isBrvError(error) && (error.kind === 'not-found' || error.kind === 'not-a-brv-commit' || error.kind === 'unsupported-format'))
      throw new HttpError(400, error.kind, error.message);
    throw error;
  }
}

/** `{ remote? }` of the sync operations. */
async function remoteBody(call: Parameters<Handler>[0]): Promise<SyncBody> {
  const body = objectBody<SyncBody>(
    await readJsonBody(call.req, { optional: true }),
    { remote: true },
    '{ "remote"?: "<git remote name>" }',
  );
  const remote = stringField(body, 'remote', 100, true);
  return remote === undefined ? {} : { remote };
}

/**
 * A fetch, pull, push or sync: its result as JSON, or — for a client that accepts
 * application/x-ndjson — its steps and git's transfer progress as they happen, then the result.
 */
async function syncOperation<T>(
  call: Parameters<Handler>[0],
  run: (brv: Brv, request: { remote?: string; onProgress?: (progress: SyncProgress) => void }) => Promise<T>,
): Promise<T | typeof STREAMED> {
  const request = await remoteBody(call);
  const brv = await call.brv();
  if (!wantsStream(call)) return run(brv, request);
  return streamProgress(call, (onProgress) => run(brv, { ...request, onProgress }));
}

/** `{ hooks? }` of hooks install/uninstall: the hooks to act on (default all). */
async function hooksBody(call: Parameters<Handler>[0]): Promise<HooksBody> {
  const body = objectBody<HooksBody>(await readJsonBody(call.req, { optional: true }), { hooks: true }, '{ "hooks"?: ["pre-commit", …] }');
  if (body.hooks === undefined) return {};
  if (!Array.isArray(body.hooks) || body.hooks.length > 20 || !body.hooks.every((h) => typeof h === 'string' && h.length <= 50))
    throw new HttpError(400, 'invalid-request', 'hooks must be an array of hook names.');
  return { hooks: body.hooks as string[] };
}

/** `{ agent, type? }` of connectors install/uninstall, in this repository's work tree. */
async function connectorBody(call: Parameters<Handler>[0]): Promise<ConnectorBody & { cwd: string }> {
  const body = objectBody<ConnectorBody>(
    await readJsonBody(call.req),
    { agent: true, type: true },
    '{ "agent": "<agent id>", "type"?: "rules|mcp|skill|hook|agent" }',
  );
  const agent = stringField(body, 'agent', 100);
  const type = stringField(body, 'type', 20, true);
  if (type !== undefined && !['rules', 'mcp', 'skill', 'hook', 'agent'].includes(type))
    throw new HttpError(400, 'invalid-request', 'type must be one of rules, mcp, skill, hook, agent.');
  return { agent, type: type as ConnectorType | undefined, cwd: await projectDir(await call.brv()) };
}

function projectDir(brv: Brv): string {
  const { workTree } = brv.repository;
  if (!workTree) throw new HttpError(400, 'no-work-tree', 'This repository is bare: connectors are installed into a work tree.');
  return workTree;
}

/** One part of `/api/setup`: its value, or its error in its place (never the whole answer's). */
async function part<T>(run: () => Promise<T>): Promise<T | { error: { kind: string; message: string } }> {
  try {
    return await run();
  } catch (error) {
    if (isBrvError(error)) return { error: { kind: error.kind, message: error.message } };
    return { error: { kind: 'internal-error', message: 'Unexpected failure reading this part.' } };
  }
}

/**
 * The second part of the JSON API (README, "Web dashboard"): diffs of versions and commits, editing a
 * topic, branches and sync, setup (settings, hooks, connectors, doctor). Each is one service call.
 */
export function manageRoutes(service: BrvService) {
  return {
    '/api/topic/diff': {
      GET: async ({ brv, url }) => {
        const path = queryString(url, 'path', true);
        const from = revisionParam(url, 'from', true);
        const to = revisionParam(url, 'to', false);
        const b = await brv();
        const { path: topic, from: fromOid, to: toOid, status, diff } = await resolving(() => b.history.topicDiff({ path, from, to }));
        return { path: topic, from: fromOid, to: toOid, status, diff };
      },
    },
    '/api/commit': {
      GET: async ({ brv, url }) => {
        const rev = revisionParam(url, 'rev', true);
        const b = await brv();
        const listed = await resolving(() => b.history.show({ spec: rev }));
        if (listed.kind !== 'commit') throw new HttpError(400, 'invalid-revision', 'rev must name a commit.');
        const all = listed.commit.changes;
        const shown = all.slice(0, MAX_COMMIT_DIFFS).map((c) => c.path);
        const wanted = new Set(shown);
        const patched = shown.length === 0 ? listed : await b.history.show({ spec: listed.commit.commit, patch: true, paths: shown });
        const changes = patched.kind === 'commit' ? patched.commit.changes.filter((c) => wanted.has(c.path)) : [];
        const { commit, parents, time, author, subject, meta } = listed.commit;
        return {
          commit,
          parents,
          time,
          author,
          subject,
          meta,
          changes: changes.map(({ path, status, diff, problem }) => ({ path, status, diff: diff ?? '', ...(problem ? { problem } : {}) })),
          ...(all.length > shown.length ? { changesOmitted: all.length - shown.length } : {}),
        };
      },
    },
    '/api/edit': {
      GET: async ({ brv, url }) => {
        const opened = await (await brv()).knowledge.editOpen({ path: queryString(url, 'path', true) });
        return { path: opened.topicPath, html: opened.html, version: opened.version, commit: opened.commit };
      },
      PUT: async ({ brv, req }) => {
        const body = objectBody<EditBody>(
          await readJsonBody(req),
          { path: true, html: true, version: true },
          '{ "path", "html", "version" }',
        );
        const path = stringField(body, 'path', 4096);
        const version = stringField(body, 'version', 64);
        if (typeof body.html !== 'string') throw new HttpError(400, 'invalid-request', 'html must be the topic HTML (a string).');
        if (!/^[0-9a-f]{40}([0-9a-f]{24})?$/.test(version))
          throw new HttpError(400, 'invalid-request', 'version must be the version GET /api/edit answered.');
        const b = await brv();
        let saved;
        try {
          saved = await b.knowledge.editSave({ path, html: body.html, version }, ACTOR);
        } catch (error) {
          if (!isBrvError(error) || error.kind !== 'edit-conflict') throw error;
          const current = await b.knowledge.editOpen({ path }).then(
            (opened) => ({ html: opened.html, version: opened.version }),
            () => null,
          );
          throw new HttpError(
            409,
            'edit-conflict',
            current
              ? `${path} changed since you opened it: nothing was saved. Here is the current version; carry your changes over to it and save again.`
              : `${path} was removed since you opened it: nothing was saved.`,
            { current } satisfies EditConflictDetail,
          );
        }
        if (!saved.ok) {
          const errors = saved.errors.map(({ kind, message, tag, attribute, line, column }) => ({
            kind,
            message,
            ...(tag ? { tag } : {}),
            ...(attribute ? { attribute } : {}),
            ...(line !== undefined ? { line, column } : {}),
          }));
          const only = errors.length === 1 ? errors[0]!.kind : undefined;
          throw new HttpError(
            422,
            only === 'edit-path-changed' ? only : 'invalid-topic',
            `The topic is not valid (${errors.length} problem${errors.length === 1 ? '' : 's'}): nothing was saved. ${errors[0]?.message ?? ''}`.trim(),
            { errors } satisfies EditInvalidDetail,
          );
        }
        if (saved.unchanged) return { status: 'unchanged' as const };
        return { status: 'saved' as const, commit: saved.commit, ...(saved.review ? { review: saved.review } : {}) };
      },
    },
    '/api/branches': {
      GET: async ({ brv }) => {
        const b = await brv();
        const [branches, upstreams, remotes, worktrees] = await Promise.all([
          b.history.branches({ all: true }),
          b.history.upstreams(),
          b.sharing.remotes(),
          b.setup.worktrees(),
        ]);
        return {
          current: b.branch,
          branches: branches.map((branch) => {
            const up = branch.remote ? undefined : upstreams.find((u) => u.branch === branch.branch);
            return {
              name: branch.branch,
              tip: branch.commit,
              current: branch.current,
              ...(branch.remote ? { remote: branch.remote } : {}),
              ...(up ? { upstream: `${up.remote}/${up.branch}`, ahead: up.ahead, behind: up.behind } : {}),
            };
          }),
          remotes: remotes.map(({ name, url }) => ({ name, url })),
          worktrees: worktrees.map((w) => ({ path: w.path, branch: w.brvBranch, gitBranch: w.gitBranch ?? null, current: w.current })),
        };
      },
    },
    '/api/sync/fetch': {
      POST: async (call) => syncOperation(call, (b, request) => b.sharing.fetch(request)),
    },
    '/api/sync/pull': {
      POST: async (call) => syncOperation(call, (b, request) => b.sharing.pull(request, ACTOR)),
    },
    '/api/sync/push': {
      POST: async (call) => syncOperation(call, (b, request) => b.sharing.push(request)),
    },
    '/api/sync/sync': {
      POST: async (call) => syncOperation(call, (b, request) => b.sharing.sync(request, ACTOR)),
    },
    '/api/setup': {
      GET: async ({ brv }) => {
        const b = await brv();
        const [settings, hooks, connectors, doctor] = await Promise.all([
          part(() => b.setup.settings()),
          part(() => b.setup.hooksStatus()),
          // The status lists what is installed; `agents`, every agent that can be (with its types).
          part(async () => ({ ...(await service.connectorStatus({ cwd: projectDir(b) })), agents: await service.agents() })),
          part(() => b.setup.doctor()),
        ]);
        return { settings, hooks, connectors, doctor };
      },
    },
    '/api/settings': {
      PUT: async ({ brv, req }) => {
        const body = objectBody<SettingBody>(await readJsonBody(req), { key: true, value: true }, '{ "key": "review.gate", "value": … }');
        const key = stringField(body, 'key', 200);
        const { value } = body;
        if (
          !(typeof value === 'string' || typeof value === 'boolean' || (typeof value === 'number' && Number.isFinite(value))) ||
          String(value).length > 1000
        )
          throw new HttpError(400, 'invalid-request', 'value must be a string, a number or a boolean.');
        return (await brv()).setup.setSetting({ key, value: String(value) });
      },
    },
    '/api/hooks/install': {
      POST: async (call) => (await call.brv()).setup.installHooks(await hooksBody(call)),
    },
    '/api/hooks/uninstall': {
      POST: async (call) => (await call.brv()).setup.uninstallHooks(await hooksBody(call)),
    },
    '/api/connectors/install': {
      POST: async (call) => service.installConnector(await connectorBody(call)),
    },
    '/api/connectors/uninstall': {
      POST: async (call) => service.uninstallConnector(await connectorBody(call)),
    },
  } satisfies TypedRoutes<
    | '/api/topic/diff'
    | '/api/commit'
    | '/api/edit'
    | '/api/branches'
    | '/api/sync/fetch'
    | '/api/sync/pull'
    | '/api/sync/push'
    | '/api/sync/sync'
    | '/api/setup'
    | '/api/settings'
    | '/api/hooks/install'
    | '/api/hooks/uninstall'
    | '/api/connectors/install'
    | '/api/connectors/uninstall'
  >;
}
