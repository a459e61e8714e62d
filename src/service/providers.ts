import { BrvError } from '../base/errors.js';
import type { GitProcesses } from '../git/processes.js';
import { activeConnection, checkBaseUrl, ENV_KEY, ENV_PROVIDER, requireProvider } from '../models/llm/active.js';
import { LOCAL_SERVERS, PROVIDERS, type ProviderSpec } from '../models/llm/catalog.js';
import type { Connection, ProviderConfig } from '../models/llm/config.js';
import { describeKeySource, type KeySource, type KeyStorage } from '../models/llm/keys.js';
import type { LlmUsage } from '../models/llm/client.js';
import type { Host } from './host.js';
import { callPolicy, llmStores } from './llm.js';

export type { KeyStorage } from '../models/llm/keys.js';

/** One provider as `brv providers list` shows it. */
export interface ProviderEntry {
  id: string;
  name: string;
  connected: boolean;
  active: boolean;
  /** The model in use (connected), else the provider's default. */
  model: string;
  baseUrl?: string;
  embeddingModel?: string;
  /** Where the key comes from: `environment OPENAI_API_KEY`, the credentials file, git's credential helper, or none. Never the key. */
  key: { from: KeySource['from']; source: string };
  keyOptional: boolean;
  /** The environment variables read for the key. */
  keyVariables: readonly string[];
}

export interface ProviderList {
  providers: ProviderEntry[];
  /** The connection in use; `from: env` when BRV_LLM_PROVIDER chooses it for this process. */
  active?: { provider: string; model: string; from: 'env' | 'config' };
  configFile: string;
  credentialsFile: string;
}

export interface ConnectRequest {
  /** A provider id or name (`openai`, `anthropic`, …), or a local server's name (`ollama`, `lmstudio`, `vllm`, `llama.cpp`). */
  provider: string;
  model?: string;
  baseUrl?: string;
  /** Stored outside any repository (see KeyStore); never echoed. */
  apiKey?: string;
  keyStorage?: KeyStorage;
  embeddingModel?: string;
  /** Make it the provider in use (default true). */
  activate?: boolean;
}

export interface ConnectResult {
  provider: ProviderEntry;
  /** Where a given key was stored. */
  keyStoredIn?: string;
  warnings: string[];
}

export interface DisconnectResult {
  provider: string;
  wasActive: boolean;
  /** A key stored by brv (file or credential helper) was removed; environment variables are left alone. */
  keyRemoved: boolean;
}

export interface ModelList {
  provider: string;
  current: string;
  embeddingModel?: string;
  defaultEmbeddingModel?: string;
  models: Array<{ id: string; current: boolean; price?: { input: number; output: number } }>;
}

export interface ModelSwitchRequest {
  model: string;
  /** Default: the provider in use. */
  provider?: string;
  /** Set the embedding model (hybrid retrieval) instead of the chat model; `none` turns embeddings off. */
  embedding?: boolean;
}

export interface CheckResult {
  provider: string;
  model: string;
  /** The first line of the model's reply to a tiny prompt. */
  reply: string;
  durationMs: number;
  usage: LlmUsage;
}

/**
 * Model providers for the user, with no repository: connect one (its key stored outside any
 * repository), choose the one and the model in use, list them with where each key comes from.
 * From `BrvService.providers()`.
 */
export class Providers {
  private readonly stores;

  constructor(
    private readonly host: Host,
    private readonly processes: GitProcesses,
  ) {
    this.stores = llmStores(host, processes);
  }

  async list(): Promise<ProviderList> {
    const config = await this.stores.config.read();
    const active = await activeConnection(this.host.env, this.stores.config);
    const providers = await Promise.all(PROVIDERS.map((spec) => this.entry(spec, config, active?.spec.id)));
    return {
      providers,
      ...(active ? { active: { provider: active.spec.id, model: active.connection.model, from: active.from } } : {}),
      configFile: this.stores.config.path,
      credentialsFile: this.stores.keys.filePath,
    };
  }

  async connect(request: ConnectRequest): Promise<ConnectResult> {
    const spec = requireProvider(request.provider);
    const alias = LOCAL_SERVERS[request.provider.trim().toLowerCase()];
    const config = await this.stores.config.read();
    const previous = config.connections.find((c) => c.provider === spec.id);
    const baseText = request.baseUrl ?? alias ?? previous?.baseUrl;
    if (spec.needsBaseUrl && !baseText) {
      throw new BrvError(
        'usage',
        `${spec.id} needs --base-url: the server's OpenAI-compatible URL (Ollama http://127.0.0.1:11434/v1, LM Studio http://127.0.0.1:1234/v1).`,
      );
    }
    const model = nonEmpty(request.model, 'model') ?? previous?.model ?? spec.defaultModel;
    const embeddingModel =
      request.embeddingModel === 'none' ? undefined : (nonEmpty(request.embeddingModel, 'embedding model') ?? previous?.embeddingModel);
    const connection: Connection = {
      provider: spec.id,
      model,
      ...(baseText ? { baseUrl: checkBaseUrl(baseText) } : {}),
      ...(embeddingModel ? { embeddingModel } : {}),
    };
    const warnings: string[] = [];
    let keyStoredIn: string | undefined;
    if (request.apiKey !== undefined) {
      const key = request.apiKey.trim();
      if (!key || /[\s\0]/.test(key)) throw new BrvError('usage', 'The API key is empty or contains white space; nothing was stored.');
      keyStoredIn = describeKeySource(await this.stores.keys.save(spec, key, request.keyStorage ?? 'auto'));
    }
    const others = config.connections.filter((c) => c.provider !== spec.id);
    const next: ProviderConfig = {
      ...(request.activate === false ? (config.active ? { active: config.active } : {}) : { active: spec.id }),
      connections: [...others, connection],
    };
    await this.stores.config.write(next);
    const entry = await this.entry(spec, next, request.activate === false ? config.active : spec.id);
    if (entry.key.from === 'none' && !spec.keyOptional) {
      warnings.push(
        `No API key found for ${spec.id}: set ${spec.keyVariables[0]}, or run brv providers connect ${spec.id} --api-key - and paste it.`,
      );
    }
    if (this.host.env[ENV_PROVIDER]) warnings.push(`${ENV_PROVIDER} is set in this environment and overrides the connection in use.`);
    return { provider: entry, ...(keyStoredIn ? { keyStoredIn } : {}), warnings };
  }

  async switch(request: { provider: string }): Promise<ProviderEntry> {
    const spec = requireProvider(request.provider);
    const config = await this.stores.config.read();
    if (!config.connections.some((c) => c.provider === spec.id)) {
      throw new BrvError('unknown-provider', `${spec.id} is not connected: brv providers connect ${spec.id} first.`);
    }
    const next = { ...config, active: spec.id };
    await this.stores.config.write(next);
    return this.entry(spec, next, spec.id);
  }

  async disconnect(request: { provider: string }): Promise<DisconnectResult> {
    const spec = requireProvider(request.provider);
    const config = await this.stores.config.read();
    const before = await this.stores.keys.find(spec, [], true);
    const stored = before.source.from === 'file' || before.source.from === 'credential-helper';
    await this.stores.keys.remove(spec);
    const wasActive = config.active === spec.id;
    const connections = config.connections.filter((c) => c.provider !== spec.id);
    await this.stores.config.write({ ...(config.active && !wasActive ? { active: config.active } : {}), connections });
    return { provider: spec.id, wasActive, keyRemoved: stored };
  }

  async models(request: { provider?: string } = {}): Promise<ModelList> {
    const { spec, connection } = await this.target(request.provider);
    const current = connection?.model ?? spec.defaultModel;
    const ids = [...new Set([...spec.models, current])];
    return {
      provider: spec.id,
      current,
      ...(connection?.embeddingModel ? { embeddingModel: connection.embeddingModel } : {}),
      ...(spec.defaultEmbeddingModel ? { defaultEmbeddingModel: spec.defaultEmbeddingModel } : {}),
      models: ids.map((id) => ({ id, current: id === current, ...(spec.prices?.[id] ? { price: spec.prices[id] } : {}) })),
    };
  }

  async switchModel(request: ModelSwitchRequest): Promise<ProviderEntry> {
    const { spec, connection } = await this.target(request.provider);
    if (!connection) throw new BrvError('unknown-provider', `${spec.id} is not connected: brv providers connect ${spec.id} first.`);
    const model = nonEmpty(request.model, 'model')!;
    const config = await this.stores.config.read();
    const updated: Connection = request.embedding
      ? (({ embeddingModel: _dropped, ...rest }) => (model === 'none' ? rest : { ...rest, embeddingModel: model }))(connection)
      : { ...connection, model };
    const next = { ...config, connections: config.connections.map((c) => (c.provider === spec.id ? updated : c)) };
    await this.stores.config.write(next);
    return this.entry(spec, next, config.active);
  }

  /** One tiny request to the provider in use (or the one named): the key, URL and model work. */
  async check(request: { provider?: string } = {}): Promise<CheckResult> {
    const { spec, connection } = await this.target(request.provider);
    if (!connection) throw new BrvError('no-provider', `${spec.id} is not connected: brv providers connect ${spec.id} first.`);
    const [{ openClient }, { GlobalGitConfig }, { readGlobalLlmSettings }] = await Promise.all([
      import('../models/llm/resolve.js'),
      import('../git/global-config.js'),
      import('./llm.js'),
    ]);
    const settings = await readGlobalLlmSettings(new GlobalGitConfig(this.processes, this.host.home));
    const from = request.provider === undefined && this.host.env[ENV_PROVIDER] ? 'env' : 'config';
    const client = await openClient({ spec, connection, from }, this.stores.keys, callPolicy(settings));
    const started = Date.now();
    const reply = await client.generate({ prompt: 'Reply with the single word: ready', maxOutputTokens: 16 });
    return {
      provider: spec.id,
      model: connection.model,
      reply: reply.trim().split('\n')[0]!.slice(0, 200),
      durationMs: Date.now() - started,
      usage: client.usage(),
    };
  }

  /** The provider named, else the one in use; with its connection when connected. */
  private async target(name: string | undefined): Promise<{ spec: ProviderSpec; connection?: Connection }> {
    if (name === undefined) {
      const active = await activeConnection(this.host.env, this.stores.config);
      if (!active) {
        const connected = (await this.stores.config.read()).connections.map((c) => c.provider);
        throw new BrvError(
          'no-provider',
          connected.length > 0
            ? `No provider is in use: brv providers switch <provider> (connected: ${connected.join(', ')}), or name one with --provider.`
            : 'No provider is connected: brv providers connect <provider> (brv providers list shows them).',
        );
      }
      return { spec: active.spec, connection: active.connection };
    }
    const spec = requireProvider(name);
    const connection = (await this.stores.config.read()).connections.find((c) => c.provider === spec.id);
    return connection ? { spec, connection } : { spec };
  }

  private async entry(spec: ProviderSpec, config: ProviderConfig, activeId: string | undefined): Promise<ProviderEntry> {
    const connection = config.connections.find((c) => c.provider === spec.id);
    const extra = this.host.env[ENV_PROVIDER] && activeId === spec.id ? [ENV_KEY] : [];
    // Git's credential helper is asked only for connected providers: a listing runs no git for the rest.
    const found = await this.stores.keys.find(spec, extra, connection !== undefined);
    return {
      id: spec.id,
      name: spec.name,
      connected: connection !== undefined,
      active: activeId === spec.id,
      model: connection?.model ?? spec.defaultModel,
      ...(connection?.baseUrl ? { baseUrl: connection.baseUrl } : {}),
      ...(connection?.embeddingModel ? { embeddingModel: connection.embeddingModel } : {}),
      key: { from: found.source.from, source: describeKeySource(found.source) },
      keyOptional: spec.keyOptional === true,
      keyVariables: spec.keyVariables,
    };
  }
}

function nonEmpty(value: string | undefined, what: string): string | undefined {
  if (value === undefined) return undefined;
  const text = value.trim();
  if (!text || text.length > 200 || /[\s\u0000-\u001f\u007f-\u009f]/.test(text))
    throw new BrvError('usage', `The ${what} "${value.slice(0, 60)}" is not a model id.`);
  return text;
}
