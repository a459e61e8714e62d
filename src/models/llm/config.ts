import { chmod, mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { BrvError } from '../../base/errors.js';

/** One connected provider: which model to use and where its server is. Never the key. */
export interface Connection {
  provider: string;
  model: string;
  baseUrl?: string;
  /** Set: hybrid retrieval embeds with this model. */
  embeddingModel?: string;
}

/** `providers.json` in the user's brv config directory: the connections and the one in use. */
export interface ProviderConfig {
  active?: string;
  connections: Connection[];
}

const FILE = 'providers.json';
const MAX_BYTES = 256 * 1024;

/**
 * The user's provider settings, beside (never inside) any repository, so a connection follows the
 * person from project to project and nothing about it can be committed or pushed. Written whole,
 * through a temporary file and a rename, mode 0600 in a 0700 directory.
 */
export class ProviderConfigFile {
  constructor(readonly dir: string) {}

  get path(): string {
    return path.join(this.dir, FILE);
  }

  async read(): Promise<ProviderConfig> {
    let text: string;
    try {
      const bytes = await readFile(this.path);
      if (bytes.length > MAX_BYTES) throw this.damaged('it is too large');
      text = bytes.toString('utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { connections: [] };
      if (error instanceof BrvError) throw error;
      throw this.damaged((error as Error).message);
    }
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      throw this.damaged('it is not JSON');
    }
    return parseConfig(value) ?? Promise.reject(this.damaged('it is not what brv wrote'));
  }

  async write(config: ProviderConfig): Promise<void> {
    try {
      await mkdir(this.dir, { recursive: true, mode: 0o700 });
      const temp = `${this.path}.${process.pid}.tmp`;
      await writeFile(temp, `${JSON.stringify(config, null, 2)}\n`, { mode: 0o600 });
      await chmod(temp, 0o600);
      await rename(temp, this.path);
    } catch (error) {
      throw new BrvError('provider-config-unreadable', `Cannot write ${this.path}: ${(error as Error).message}.`);
    }
  }

  private damaged(why: string): BrvError {
    return new BrvError('provider-config-unreadable', `${this.path} cannot be used (${why}). Fix or delete it, then connect again.`);
  }
}

function parseConfig(value: unknown): ProviderConfig | undefined {
  if (!isObject(value)) return undefined;
  const { active, connections } = value;
  if (active !== undefined && typeof active !== 'string') return undefined;
  if (!Array.isArray(connections)) return undefined;
  const parsed: Connection[] = [];
  for (const entry of connections) {
    if (!isObject(entry) || typeof entry.provider !== 'string' || typeof entry.model !== 'string') return undefined;
    const optional = (key: string) => (typeof entry[key] === 'string' ? { [key]: entry[key] as string } : {});
    parsed.push({ provider: entry.provider, model: entry.model, ...optional('baseUrl'), ...optional('embeddingModel') });
  }
  return { ...(active ? { active } : {}), connections: parsed };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
