import { activeConnection, brvConfigDir, type ActiveConnection } from '../models/llm/active.js';
import { ProviderConfigFile } from '../models/llm/config.js';
import type { Host } from './host.js';

// Apart from service/llm.ts, which loads the model client (and so the ai SDK) with it: a command
// that only asks whether a model is connected (`brv curate` in text, every kickoff) stays light.

/** The connection in use, or undefined: reads one small file, loads no SDK. */
export function connectionOf(host: Host): Promise<ActiveConnection | undefined> {
  return activeConnection(host.env, new ProviderConfigFile(brvConfigDir(host.env, host.home)));
}
