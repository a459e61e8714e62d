import { activeConnection, brvConfigDir, type ActiveConnection } from '../llm/active.js';
import { ProviderConfigFile } from '../llm/config.js';
import type { Host } from './host.js';

// Apart from llm.ts, which imports the model client (and with it the ai SDK) for its default call
// policy: asking which connection is in use must load neither (a query without an embedding model).

/** The connection in use, or undefined: reads one small file, loads no SDK. */
export function connectionOf(host: Host): Promise<ActiveConnection | undefined> {
  return activeConnection(host.env, new ProviderConfigFile(brvConfigDir(host.env, host.home)));
}
