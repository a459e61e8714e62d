import { chmod, mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../../base/errors.js';
import type { GitCredentials } from '../../git/credential.js';
import type { ProviderSpec } from './catalog.js';

/** Where a provider's key was found (shown by `brv providers list`; the key itself never is). */
export type KeySource =
  { from: 'env'; variable: string } | { from: 'credential-helper' } | { from: 'file'; path: string } | { from: 'none' };

export type KeyStorage = 'auto' | 'file' | 'credential-helper';

const FILE = 'credentials.json';
const USERNAME = 'brv';

/**
 * API keys: never in a repository or git config. Looked up in the environment first (the
 * provider's own variables), then brv's 0600 credentials file in the user's config directory, then
 * git's credential helper (an OS keychain, say) when one is configured.
 */
export class KeyStore {
  constructor(
    private readonly dir: string,
    private readonly env: Readonly<Record<string, string | undefined>>,
    private readonly helper: GitCredentials | undefined,
  ) {}

  get filePath(): string {
    return path.join(this.dir, FILE);
  }

  /** `askHelper: false` skips git's credential helper (a listing of every provider need not run git for each). */
  async find(spec: ProviderSpec, extraVariables: readonly string[] = [], askHelper = true): Promise<{ key?: string; source: KeySource }> {
    for (const variable of [...extraVariables, ...spec.keyVariables]) {
      const value = this.env[variable]?.trim();
      if (value) return { key: value, source: { from: 'env', variable } };
    }
    const stored = (await this.readFile())[spec.id];
    if (stored) return { key: stored, source: { from: 'file', path: this.filePath } };
    if (askHelper && this.helper && (await this.helper.configured())) {
      const key = await this.helper.fill({ host: spec.credentialHost, username: USERNAME });
      if (key) return { key, source: { from: 'credential-helper' } };
    }
    return { source: { from: 'none' } };
  }

  /** Stores a key: in git's credential helper when one is configured (`auto`), else the file. */
  async save(spec: ProviderSpec, key: string, storage: KeyStorage): Promise<KeySource> {
    const useHelper =
      storage === 'credential-helper' || (storage === 'auto' && this.helper !== undefined && (await this.helper.configured()));
    if (useHelper) {
      if (!this.helper || !(await this.helper.configured())) {
        throw new BrvError(
          'no-credential-helper',
          'No git credential helper is configured: set one (git config --global credential.helper …) or store the key with --key-storage file.',
        );
      }
      await this.helper.approve({ host: spec.credentialHost, username: USERNAME }, key);
      await this.forget(spec.id);
      return { from: 'credential-helper' };
    }
    const keys = await this.readFile();
    keys[spec.id] = key;
    await this.writeFile(keys);
    return { from: 'file', path: this.filePath };
  }

  /** Removes a stored key from the file and the credential helper (environment variables are the user's). */
  async remove(spec: ProviderSpec): Promise<void> {
    await this.forget(spec.id);
    if (this.helper && (await this.helper.configured())) await this.helper.reject({ host: spec.credentialHost, username: USERNAME });
  }

  private async forget(id: string): Promise<void> {
    const keys = await this.readFile();
    if (!(id in keys)) return;
    delete keys[id];
    await this.writeFile(keys);
  }

  private async readFile(): Promise<Record<string, string>> {
    try {
      const info = await stat(this.filePath);
      if (info.size > 64 * 1024) return {};
      const value = JSON.parse(await readFile(this.filePath, 'utf8')) as unknown;
      const keys = (value as { keys?: unknown })?.keys;
      if (typeof keys !== 'object' || keys === null) return {};
      return Object.fromEntries(Object.entries(keys).filter((e): e is [string, string] => typeof e[1] === 'string' && e[1].length > 0));
    } catch {
      return {};
    }
  }

  private async writeFile(keys: Record<string, string>): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const temp = `${this.filePath}.${process.pid}.tmp`;
      await writeFile(temp, `${JSON.stringify({ version: 1, keys }, null, 2)}\n`, { mode: 0o600 });
      await chmod(temp, 0o600);
      await rename(temp, this.filePath);
    } catch (error) {
      throw new BrvError('provider-config-unreadable', `Cannot write ${this.filePath}: ${(error as Error).message}.`);
    }
  }
}

export function describeKeySource(source: KeySource): string {
  switch (source.from) {
    case 'env':
      return `environment ${source.variable}`;
    case 'credential-helper':
      return "git's credential helper";
    case 'file':
      return source.path;
    default:
      return 'none';
  }
}
