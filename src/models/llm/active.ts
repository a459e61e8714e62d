import path from 'node:path';
import { BrvError } from '../../base/errors.js';
import { findProvider, LOCAL_SERVERS, PROVIDERS, type ProviderSpec } from './catalog.js';
import type { Connection, ProviderConfigFile } from './config.js';

// Which connection is in use, without loading the ai SDK: every command that could use a model
// asks this first, and only loads src/models/llm/resolve.ts (and the SDK) when the answer is yes.

/** brv's directory in the user's config directory (`$XDG_CONFIG_HOME/brv`, else `~/.config/brv`). */
export function brvConfigDir(env: Readonly<Record<string, string | undefined>>, home: string): string {
  const base = env.XDG_CONFIG_HOME?.trim();
  return path.join(base && path.isAbsolute(base) ? base : path.join(home, '.config'), 'brv');
}

/** The connection in use and where it was chosen. */
export interface ActiveConnection {
  spec: ProviderSpec;
  connection: Connection;
  /** `env`: BRV_LLM_PROVIDER (CI, agents, tests) overrides the config file for one process. */
  from: 'env' | 'config';
}

/** The environment variables that choose a connection for one process (`BRV_LLM_PROVIDER=none` turns the layer off). */
export const ENV_PROVIDER = 'BRV_LLM_PROVIDER';
const ENV_MODEL = 'BRV_LLM_MODEL';
const ENV_BASE_URL = 'BRV_LLM_BASE_URL';
const ENV_EMBEDDING = 'BRV_LLM_EMBEDDING_MODEL';
export const ENV_KEY = 'BRV_LLM_API_KEY';

/**
 * The connection brv uses now: the environment's (BRV_LLM_PROVIDER and friends) if set, else the
 * active one in providers.json; undefined when none (the model layer is off: brv behaves as without it).
 */
export async function activeConnection(
  env: Readonly<Record<string, string | undefined>>,
  config: ProviderConfigFile,
): Promise<ActiveConnection | undefined> {
  const named = env[ENV_PROVIDER]?.trim();
  if (named) {
    if (/^(none|off|false|0)$/i.test(named)) return undefined;
    const spec = requireProvider(named);
    const baseUrl = env[ENV_BASE_URL]?.trim() || LOCAL_SERVERS[named.toLowerCase()];
    const embedding = env[ENV_EMBEDDING]?.trim();
    const connection: Connection = {
      provider: spec.id,
      model: env[ENV_MODEL]?.trim() || spec.defaultModel,
      ...(baseUrl ? { baseUrl: checkBaseUrl(baseUrl) } : {}),
      ...(embedding ? { embeddingModel: embedding } : {}),
    };
    if (spec.needsBaseUrl && !connection.baseUrl) {
      throw new BrvError(
        'usage',
        `${ENV_PROVIDER}=${named} needs ${ENV_BASE_URL} (the server's OpenAI-compatible URL, e.g. http://127.0.0.1:11434/v1).`,
      );
    }
    return { spec, connection, from: 'env' };
  }
  const { active, connections } = await config.read();
  const connection = connections.find((c) => c.provider === active);
  const spec = connection && findProvider(connection.provider);
  if (!spec || !connection) return undefined;
  if (connection.baseUrl !== undefined) {
    // The file is the user's, but it is read as any input: no request goes to a URL `connect` would refuse.
    try {
      checkBaseUrl(connection.baseUrl);
    } catch {
      throw new BrvError(
        'provider-config-unreadable',
        `${config.path} names a base URL for ${spec.id} that is not http(s): fix it with brv providers connect ${spec.id} --base-url <url>.`,
      );
    }
  }
  return { spec, connection, from: 'config' };
}

export function requireProvider(name: string): ProviderSpec {
  const spec = findProvider(name);
  if (!spec) {
    throw new BrvError('unknown-provider', `Unknown provider "${name.slice(0, 60)}". Known: ${knownProviders()}.`);
  }
  return spec;
}

function knownProviders(): string {
  return [...PROVIDERS.map((spec) => spec.id), ...Object.keys(LOCAL_SERVERS)].join(', ');
}

/** A base URL must be http(s) with a host: anything else is refused before a request is made. */
export function checkBaseUrl(text: string): string {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new BrvError('usage', `The base URL "${text.slice(0, 200)}" is not a URL (e.g. http://127.0.0.1:11434/v1).`);
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || url.username || url.password) {
    throw new BrvError('usage', `The base URL must be http:// or https:// with a host and no credentials in it (got ${url.protocol}).`);
  }
  return url.toString().replace(/\/+$/, '');
}
