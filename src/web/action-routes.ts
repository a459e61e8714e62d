// The dashboard's actions beyond reading, editing and reviewing (README, "Web dashboard"): a new topic from the
// guided form (the TUI's `/curate` template, src/views/curate-form.ts), deleting, asking (`brv query --answer`),
// dreaming into a review, creating / checking out / merging brv branches, and the model providers. Each is one
// service call; errors keep the service's kinds, mapped to HTTP statuses as every route does (request.ts).
import { isBrvError } from '../base/errors.js';
import { DREAM_KINDS, type DreamKind } from '../service/knowledge.js';
import type { BrvService } from '../service/service.js';
import { EMPTY_FORM, FIELDS, formGap, formHtml, formMeta, KINDS, type CurateForm } from '../views/curate-form.js';
import { dreamText } from '../views/dream.js';
import type {
  AskBody,
  CheckoutBody,
  ConnectProviderBody,
  CreateBranchBody,
  CreateTopicBody,
  CurateCheckBody,
  CurateFormValues,
  DreamBody,
  EditInvalidDetail,
  MergeBody,
  ModelBody,
  ProviderBody,
  RemoveTopicBody,
  ValidationProblem,
} from './api-types.js';
import { HttpError, objectBody, queryString, readJsonBody, stringField, type BodyFields, type TypedRoutes } from './request.js';

/** Recorded as the Brv-Agent trailer of what the dashboard writes. */
const ACTOR = { agent: 'webui' } as const;
const MAX_PATH = 4096;
const MAX_TEXT = 200_000;
const MAX_QUESTION = 2000;

/** The form's values: every field a string (the kind an index into KINDS), at most MAX_TEXT characters. */
function formValues(value: unknown): CurateForm {
  const body = objectBody<CurateFormValues>(
    value,
    { path: true, title: true, summary: true, kind: true, text: true, reason: true },
    'form: { "path", "title", "summary", "kind", "text", "reason" }',
  );
  const form: CurateForm = { ...EMPTY_FORM };
  for (const name of ['path', 'title', 'summary', 'text', 'reason'] as const) {
    const field = body[name];
    if (field === undefined) continue;
    if (typeof field !== 'string' || field.length > MAX_TEXT)
      throw new HttpError(400, 'invalid-request', `form.${name} must be a string of at most ${MAX_TEXT} characters.`);
    form[name] = field;
  }
  if (body.kind !== undefined) {
    if (typeof body.kind !== 'number' || !Number.isInteger(body.kind) || body.kind < 0 || body.kind >= KINDS.length)
      throw new HttpError(400, 'invalid-request', `form.kind must be a whole number from 0 to ${KINDS.length - 1} (GET /api/curate/form).`);
    form.kind = body.kind;
  }
  return form;
}

function problems(errors: ReadonlyArray<ValidationProblem>): ValidationProblem[] {
  return errors.map(({ kind, message, tag, attribute, line, column }) => ({
    kind,
    message,
    ...(tag ? { tag } : {}),
    ...(attribute ? { attribute } : {}),
    ...(line !== undefined ? { line, column } : {}),
  }));
}

function optionalBoolean<B>(body: BodyFields<B>, name: keyof B & string): boolean | undefined {
  const value = body[name];
  if (value !== undefined && typeof value !== 'boolean') throw new HttpError(400, 'invalid-request', `${name} must be true or false.`);
  return value as boolean | undefined;
}

function optionalWhole<B>(body: BodyFields<B>, name: keyof B & string, max: number): number | undefined {
  const value = body[name];
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max)
    throw new HttpError(400, 'invalid-request', `${name} must be a whole number from 1 to ${max}.`);
  return value;
}

/** What a failed answer means for the person asking, with the fix (the topics retrieval found are shown anyway). */
function modelNote(kind: string, message: string): string {
  const fix =
    kind === 'no-provider'
      ? 'Connect a model under Setup → Model (or brv providers connect <provider>) to get an answer with citations.'
      : kind === 'llm-unavailable' || kind === 'llm-timeout'
        ? 'Start the model server (or check its URL under Setup → Model), then ask again.'
        : kind === 'llm-auth' || kind === 'missing-api-key'
          ? 'Give the provider a working API key under Setup → Model, then ask again.'
          : 'Check the model under Setup → Model, then ask again.';
  return `${message} ${fix} The topics below were found without the model.`;
}

const MODEL_FAILURES = /^(llm-|no-provider$|missing-api-key$|unknown-provider$|provider-config-unreadable$|no-credential-helper$)/;

export function actionRoutes(service: BrvService) {
  return {
    '/api/curate/form': {
      GET: async () => ({
        fields: FIELDS.map(({ name, label, hint }) => ({ name, label, hint: name === 'path' ? 'folder/topic, e.g. security/auth' : hint })),
        kinds: KINDS.map(({ label }) => ({ label })),
      }),
    },
    '/api/curate/check': {
      POST: async ({ brv, req }) => {
        const body = objectBody<CurateCheckBody>(await readJsonBody(req), { form: true }, '{ "form": { … } }');
        const form = formValues(body.form);
        const gap = formGap(form);
        if (gap !== undefined) return { gap, html: null, path: null, warnings: [], errors: [] };
        const html = formHtml(form);
        const checked = await (await brv()).knowledge.checkHtml({ html });
        return checked.ok
          ? { gap: null, html, path: checked.topicPath, warnings: checked.warnings, errors: [] }
          : { gap: null, html, path: null, warnings: [], errors: problems(checked.errors) };
      },
    },
    '/api/topics': {
      POST: async ({ brv, req }) => {
        const body = objectBody<CreateTopicBody>(
          await readJsonBody(req),
          { form: true, html: true, reason: true, overwrite: true },
          '{ "form": { … } } or { "html", "reason"? }, with "overwrite"?',
        );
        const overwrite = optionalBoolean(body, 'overwrite');
        let html: string;
        let meta: { reason: string } | undefined;
        if (body.form !== undefined) {
          if (body.html !== undefined || body.reason !== undefined)
            throw new HttpError(400, 'invalid-request', 'Send either form or html (with reason), not both.');
          const form = formValues(body.form);
          const gap = formGap(form);
          if (gap !== undefined) throw new HttpError(400, 'invalid-request', gap);
          html = formHtml(form);
          meta = formMeta(form);
        } else {
          html = stringField(body, 'html', 1024 * 1024);
          const reason = stringField(body, 'reason', 2000, true);
          meta = reason === undefined ? undefined : { reason };
        }
        const written = await (await brv()).knowledge.curateHtml({ html, meta, overwrite }, ACTOR);
        if (!written.ok) {
          const errors = problems(written.errors);
          const only = errors.length === 1 ? errors[0]!.kind : undefined;
          if (only === 'path-exists') throw new HttpError(409, only, errors[0]!.message);
          throw new HttpError(
            422,
            only === 'too-large' ? only : 'invalid-topic',
            `The topic is not valid (${errors.length} problem${errors.length === 1 ? '' : 's'}): nothing was written. ${errors[0]?.message ?? ''}`.trim(),
            { errors } satisfies EditInvalidDetail,
          );
        }
        return {
          status: written.unchanged ? ('unchanged' as const) : ('written' as const),
          path: written.topicPath,
          type: written.type,
          commit: written.commit ?? null,
          warnings: written.warnings,
          ...(written.review ? { review: written.review } : {}),
        };
      },
    },
    '/api/topics/remove': {
      POST: async ({ brv, req }) => {
        const body = objectBody<RemoveTopicBody>(
          await readJsonBody(req),
          { path: true, recursive: true, reason: true },
          '{ "path", "recursive"?, "reason"? }',
        );
        const path = stringField(body, 'path', MAX_PATH);
        const recursive = optionalBoolean(body, 'recursive');
        const reason = stringField(body, 'reason', 2000, true);
        return (await brv()).knowledge.remove({ path, recursive, reason }, ACTOR);
      },
    },
    '/api/ask': {
      POST: async ({ brv, req, res }) => {
        const body = objectBody<AskBody>(await readJsonBody(req), { question: true, limit: true }, '{ "question", "limit"? }');
        const question = stringField(body, 'question', MAX_QUESTION);
        if (question.trim() === '') throw new HttpError(400, 'invalid-request', 'Ask a question (it is empty).');
        const limit = optionalWhole(body, 'limit', 20);
        const b = await brv();
        const found = await b.retrieval.search({ question, limit: limit ?? 5 });
        const topics = found.results.map((r) => ({
          path: r.topicPath,
          title: r.title,
          score: r.score,
          excerpt: r.excerpt,
          ...('origin' in r && r.origin === 'shared' ? { source: r.source } : {}),
        }));
        const connection = await b.knowledge.modelConnection();
        const unanswered = (kind: string, message: string) => ({
          question,
          answer: null,
          citations: [],
          notInKnowledge: false,
          topics,
          model: connection ?? null,
          note: { kind, message: modelNote(kind, message) },
        });
        if (!connection) return unanswered('no-provider', 'No model is connected, so there is no answer.');
        // A page closed mid-answer stops the model call.
        const controller = new AbortController();
        res.once('close', () => controller.abort());
        try {
          const answered = await b.retrieval.answer({ question, ...(limit ? { limit } : {}), signal: controller.signal });
          // A model failure comes back beside what retrieval found (the CLI shows both the same way).
          if (answered.modelError) return unanswered(answered.modelError.kind, answered.modelError.message);
          return {
            question,
            answer: answered.notInKnowledge ? null : answered.answer,
            citations: answered.citations,
            notInKnowledge: answered.notInKnowledge,
            topics,
            model: connection,
            note: null,
          };
        } catch (error) {
          if (isBrvError(error) && MODEL_FAILURES.test(error.kind)) return unanswered(error.kind, error.message);
          throw error;
        }
      },
    },
    '/api/dream': {
      POST: async ({ brv, req }) => {
        const body = objectBody<DreamBody>(
          await readJsonBody(req, { optional: true }),
          { scope: true, kinds: true, max: true, dryRun: true },
          '{ "scope"?, "kinds"?, "max"?, "dryRun"? }',
        );
        const scope = stringField(body, 'scope', MAX_PATH, true);
        let kinds: DreamKind[] | undefined;
        if (body.kinds !== undefined) {
          if (
            !Array.isArray(body.kinds) ||
            body.kinds.length === 0 ||
            !body.kinds.every((k) => typeof k === 'string' && (DREAM_KINDS as readonly string[]).includes(k))
          )
            throw new HttpError(400, 'usage', `kinds takes a list of ${DREAM_KINDS.join(', ')}.`);
          kinds = body.kinds as DreamKind[];
        }
        const max = optionalWhole(body, 'max', 1000);
        const dryRun = optionalBoolean(body, 'dryRun');
        const result = await (await brv()).knowledge.dream({ scope, kinds, max, dryRun }, ACTOR);
        return {
          text: dreamText(result),
          topics: result.topics,
          candidates: result.candidates.length,
          proposals: result.proposals.map(({ type, why, changes }) => ({ type, why, changes })),
          notes: result.notes,
          dryRun: result.dryRun,
          review: result.review ? { id: result.review.id, commit: result.review.commit } : null,
        };
      },
    },
    '/api/branches/create': {
      POST: async ({ brv, req }) => {
        const body = objectBody<CreateBranchBody>(await readJsonBody(req), { name: true, start: true }, '{ "name", "start"? }');
        const name = stringField(body, 'name', 200);
        const start = stringField(body, 'start', 200, true);
        return (await brv()).history.createBranch({ name, ...(start ? { start } : {}) });
      },
    },
    '/api/branches/checkout': {
      POST: async ({ brv, req }) => {
        const body = objectBody<CheckoutBody>(await readJsonBody(req), { name: true, create: true }, '{ "name", "create"? }');
        const name = stringField(body, 'name', 200);
        const create = optionalBoolean(body, 'create');
        const done = await (await brv()).history.checkout({ name, create });
        return { branch: done.branch, previous: done.previous, created: done.created, commit: done.commit ?? null };
      },
    },
    '/api/branches/merge': {
      POST: async ({ brv, req }) => {
        const body = objectBody<MergeBody>(await readJsonBody(req), { source: true }, '{ "source": "<brv branch>" }');
        const source = stringField(body, 'source', 300);
        const merged = await (await brv()).history.merge({ source }, ACTOR);
        return {
          status: merged.status,
          commit: merged.commit,
          merged: merged.merged,
          conflicts: merged.conflicts,
          ...(merged.review ? { review: merged.review } : {}),
        };
      },
    },
    '/api/providers': {
      GET: async () => (await service.providers()).list(),
    },
    '/api/providers/models': {
      GET: async ({ url }) => {
        const provider = queryString(url, 'provider');
        if (provider !== undefined && (provider === '' || provider.length > 100))
          throw new HttpError(400, 'invalid-request', 'provider must be a provider id (GET /api/providers).');
        return (await service.providers()).models(provider === undefined ? {} : { provider });
      },
    },
    '/api/providers/connect': {
      POST: async ({ req }) => {
        const body = objectBody<ConnectProviderBody>(
          await readJsonBody(req),
          { provider: true, model: true, baseUrl: true, apiKey: true, embeddingModel: true },
          '{ "provider", "model"?, "baseUrl"?, "apiKey"?, "embeddingModel"? }',
        );
        const provider = stringField(body, 'provider', 100);
        const model = stringField(body, 'model', 200, true);
        const baseUrl = stringField(body, 'baseUrl', 2000, true);
        const embeddingModel = stringField(body, 'embeddingModel', 200, true);
        // Never echoed: the service stores it outside any repository and answers where, not what.
        const apiKey = stringField(body, 'apiKey', 4096, true);
        const connected = await (await service.providers()).connect({ provider, model, baseUrl, apiKey, embeddingModel });
        return {
          provider: connected.provider,
          ...(connected.keyStoredIn ? { keyStoredIn: connected.keyStoredIn } : {}),
          warnings: connected.warnings,
        };
      },
    },
    '/api/providers/model': {
      POST: async ({ req }) => {
        const body = objectBody<ModelBody>(
          await readJsonBody(req),
          { model: true, provider: true, embedding: true },
          '{ "model", "provider"?, "embedding"? }',
        );
        const model = stringField(body, 'model', 200);
        const provider = stringField(body, 'provider', 100, true);
        const embedding = optionalBoolean(body, 'embedding');
        return (await service.providers()).switchModel({ model, provider, embedding });
      },
    },
    '/api/providers/switch': {
      POST: async ({ req }) => {
        const body = objectBody<ProviderBody>(await readJsonBody(req), { provider: true }, '{ "provider" }');
        return (await service.providers()).switch({ provider: stringField(body, 'provider', 100) });
      },
    },
    '/api/providers/disconnect': {
      POST: async ({ req }) => {
        const body = objectBody<ProviderBody>(await readJsonBody(req), { provider: true }, '{ "provider" }');
        return (await service.providers()).disconnect({ provider: stringField(body, 'provider', 100) });
      },
    },
  } satisfies TypedRoutes<
    | '/api/curate/form'
    | '/api/curate/check'
    | '/api/topics'
    | '/api/topics/remove'
    | '/api/ask'
    | '/api/dream'
    | '/api/branches/create'
    | '/api/branches/checkout'
    | '/api/branches/merge'
    | '/api/providers'
    | '/api/providers/models'
    | '/api/providers/connect'
    | '/api/providers/model'
    | '/api/providers/switch'
    | '/api/providers/disconnect'
  >;
}
