import { GitCredentials } from '../git/credential.js';
import type { GlobalGitConfig } from '../git/global-config.js';
import type { GitProcesses } from '../git/processes.js';
import type { GitRepository } from '../git/repository.js';
import type { ModelStatus } from '../setup/doctor.js';
import { brvConfigDir, ENV_KEY, type ActiveConnection } from '../models/llm/active.js';
import type { LlmClient } from '../models/llm/client.js';
import { DEFAULT_POLICY, type CallPolicy } from '../models/llm/policy.js';
import { ProviderConfigFile } from '../models/llm/config.js';
import { describeKeySource, KeyStore } from '../models/llm/keys.js';
import { readSettings, type EffectiveSettings } from '../settings/settings.js';
import type { Host } from './host.js';
import { connectionOf } from './llm-connection.js';

/** The user's provider settings and keys, as the host (its environment and home) places them. */
export function llmStores(host: Host, processes: GitProcesses): { config: ProviderConfigFile; keys: KeyStore } {
  const dir = brvConfigDir(host.env, host.home);
  return { config: new ProviderConfigFile(dir), keys: new KeyStore(dir, host.env, new GitCredentials(processes, host.home)) };
}

export function callPolicy(settings: Pick<EffectiveSettings, 'llm.timeout' | 'llm.retries'>): CallPolicy {
  return { ...DEFAULT_POLICY, timeoutMs: settings['llm.timeout'] * 1000, maxRetries: settings['llm.retries'] };
}

/** The model client of an opened repository for the connection in use (its `llm.*` settings apply). */
export async function repositoryClient(repo: GitRepository, host: Host, active: ActiveConnection): Promise<LlmClient> {
  const { keys } = llmStores(host, repo.processes);
  const [{ openClient }, settings] = await Promise.all([import('../models/llm/resolve.js'), readSettings(repo)]);
  return openClient(active, keys, callPolicy(settings));
}

/** The `llm.*` settings from the user's global git config (provider commands run outside any repository). */
export async function readGlobalLlmSettings(config: GlobalGitConfig): Promise<Pick<EffectiveSettings, 'llm.timeout' | 'llm.retries'>> {
  const { listSettings } = await import('../settings/settings.js');
  const states = await listSettings(config, { global: true });
  const value = (key: string, fallback: number) => {
    const found = states.find((s) => s.key === key)?.value;
    return typeof found === 'number' ? found : fallback;
  };
  return { 'llm.timeout': value('llm.timeout', 60), 'llm.retries': value('llm.retries', 2) };
}

/** The provider in use for `brv doctor`: where its key comes from, never the key; no network call. */
export async function modelStatus(host: Host, processes: GitProcesses): Promise<ModelStatus | undefined> {
  const active = await connectionOf(host);
  if (!active) return undefined;
  const { keys } = llmStores(host, processes);
  const found = await keys.find(active.spec, active.from === 'env' ? [ENV_KEY] : []);
  return {
    provider: active.spec.id,
    model: active.connection.model,
    from: active.from,
    keySource: found.key ? describeKeySource(found.source) : undefined,
    keyOptional: active.spec.keyOptional === true,
    ...(active.connection.embeddingModel ? { embeddingModel: active.connection.embeddingModel } : {}),
  };
}
