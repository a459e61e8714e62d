import type { CheckResult, ConnectResult, DisconnectResult, ModelList, ProviderEntry, ProviderList } from '../service/providers.js';
import { printable } from '../topic/printable.js';
import { usageLine } from './usage.js';

function keyText(entry: ProviderEntry): string {
  if (entry.key.from !== 'none') return `key: ${entry.key.source}`;
  return entry.keyOptional ? 'key: none (not needed by most local servers)' : `key: none (set ${entry.keyVariables[0]})`;
}

/** Model ids and URLs come from the user's providers.json, which brv reads as any input. */
const shown = (text: string | undefined) => (text === undefined ? undefined : printable(text));

function entryLine(entry: ProviderEntry): string {
  const mark = entry.active ? '*' : entry.connected ? '+' : ' ';
  const details = entry.connected
    ? [
        `model ${shown(entry.model)}`,
        ...(entry.embeddingModel ? [`embeddings ${shown(entry.embeddingModel)}`] : []),
        ...(entry.baseUrl ? [shown(entry.baseUrl)] : []),
        keyText(entry),
      ]
    : [keyText(entry)];
  return `${mark} ${entry.id.padEnd(18)} ${entry.name}\n    ${details.join(' · ')}`;
}

/** `brv providers list`: every provider, the connected ones marked, where each key comes from (never the key). */
export function providerListText(list: ProviderList): string {
  const lines = list.providers.map(entryLine);
  const active = list.active
    ? `In use: ${list.active.provider} (${shown(list.active.model)})${list.active.from === 'env' ? ', chosen by BRV_LLM_PROVIDER' : ''}.`
    : 'No provider in use: brv works without one. Connect one with brv providers connect <provider> [--model <id>] [--api-key -].';
  return [...lines, '', '* in use   + connected', active, `Settings: ${list.configFile}`].join('\n');
}

/** `brv providers connect`. */
export function connectText(result: ConnectResult): string {
  const entry = result.provider;
  const lines = [
    `Connected ${entry.id} (model ${shown(entry.model)}${entry.embeddingModel ? `, embeddings ${shown(entry.embeddingModel)}` : ''})${entry.active ? '; it is the provider in use' : ''}.`,
    ...(entry.baseUrl ? [`Server: ${shown(entry.baseUrl)}`] : []),
    result.keyStoredIn ? `Key stored in ${result.keyStoredIn}.` : keyText(entry).replace(/^key:/, 'Key:'),
    ...result.warnings.map((w) => `warning: ${w}`),
    'Check it with brv providers check (one small request).',
  ];
  return lines.join('\n');
}

/** `brv providers switch` and `brv model switch`. */
export function providerEntryText(entry: ProviderEntry, what: 'provider' | 'model' | 'embedding'): string {
  if (what === 'provider') return `Now using ${entry.id} (model ${shown(entry.model)}).`;
  if (what === 'embedding')
    return entry.embeddingModel
      ? `${entry.id} embeds with ${shown(entry.embeddingModel)} (hybrid retrieval).`
      : `${entry.id}: embeddings off.`;
  return `${entry.id} now uses model ${shown(entry.model)}.`;
}

/** `brv providers disconnect`. */
export function disconnectText(result: DisconnectResult): string {
  return [
    `Disconnected ${result.provider}${result.keyRemoved ? '; its stored key was removed' : ''}.`,
    ...(result.wasActive ? ['No provider is in use now: brv works as without a model.'] : []),
  ].join('\n');
}

/** `brv model list`. */
export function modelListText(list: ModelList): string {
  const lines = list.models.map((m) => {
    const price = m.price ? `  ($${m.price.input} in / $${m.price.output} out per million tokens)` : '';
    return `${m.current ? '*' : ' '} ${shown(m.id)}${price}`;
  });
  if (lines.length === 0) lines.push(`  ${shown(list.current)}`);
  const embedding = list.embeddingModel
    ? `Embeddings: ${shown(list.embeddingModel)}.`
    : `Embeddings: off${list.defaultEmbeddingModel ? ` (brv model switch --embedding ${list.defaultEmbeddingModel} turns hybrid retrieval on)` : ''}.`;
  return [`Models of ${list.provider} (any id the provider accepts works: brv model switch <id>):`, ...lines, '', embedding].join('\n');
}

/** `brv providers check`. */
export function checkText(result: CheckResult): string {
  return `${result.provider} (${shown(result.model)}) answered in ${result.durationMs} ms: ${printable(JSON.stringify(result.reply))}\n${usageLine(result.usage)}`;
}
