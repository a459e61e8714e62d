import { GitCredentials } from '../git/credential.js';
import type { GitProcesses } from '../git/processes.js';
import type { GitRepository } from '../git/repository.js';
import { brvConfigDir } from '../llm/active.js';
import { DEFAULT_POLICY, type CallPolicy, type LlmClient } from '../llm/client.js';
import { ProviderConfigFile } from '../llm/config.js';
import { KeyStore } from '../llm/keys.js';
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

/** The model client of an opened repository (its `llm.*` settings apply), or undefined when no provider is connected. */
export async function repositoryClient(repo: GitRepository, host: Host): Promise<LlmClient | undefined> {
  const active = await connectionOf(host);
  if (!active) return undefined;
  const { keys } = llmStores(host, repo.processes);
  const [{ openClient }, settings] = await Promise.all([import('../llm/resolve.js'), readSettings(repo)]);
  return openClient(active, keys, callPolicy(settings));
}
