import { BrvError } from '../../base/errors.js';
import { priceOf } from './catalog.js';
import { ENV_KEY, type ActiveConnection } from './active.js';
import { LlmClient } from './client.js';
import type { CallPolicy } from './policy.js';
import { describeKeySource, type KeyStore } from './keys.js';
import { embeddingModel, languageModel, loadProvider } from './models.js';

/** A client for the connection, with its key looked up (`missing-api-key` when one is needed and none is found). */
export async function openClient(
  active: ActiveConnection,
  keys: KeyStore,
  policy: CallPolicy,
  options: { fetch?: typeof globalThis.fetch } = {},
): Promise<LlmClient> {
  const { spec, connection } = active;
  const found = await keys.find(spec, active.from === 'env' ? [ENV_KEY] : []);
  if (!found.key && !spec.keyOptional) {
    throw new BrvError(
      'missing-api-key',
      `${spec.name} needs an API key: set ${spec.keyVariables[0]}, or store one with brv providers connect ${spec.id} --api-key - (read from standard input).`,
    );
  }
  const provider = await loadProvider(spec.package, {
    ...(found.key ? { apiKey: found.key } : {}),
    ...(connection.baseUrl ? { baseURL: connection.baseUrl } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const language = languageModel(provider, spec.package, connection.model, connection.baseUrl !== undefined);
  const embeddingId = connection.embeddingModel;
  const embedding = embeddingId
    ? async () => {
        const model = embeddingModel(provider, embeddingId);
        if (!model) throw new BrvError('llm-rejected', `${spec.name} offers no embedding models through brv.`);
        return model;
      }
    : undefined;
  return new LlmClient(
    {
      provider: spec.id,
      model: connection.model,
      ...(embeddingId ? { embeddingModel: embeddingId } : {}),
      keySource: describeKeySource(found.source),
      ...(connection.baseUrl ? { baseUrl: connection.baseUrl } : {}),
      from: active.from,
    },
    { language, ...(embedding ? { embedding } : {}) },
    policy,
    found.key ? [found.key] : [],
    priceOf(spec, connection.model),
  );
}
