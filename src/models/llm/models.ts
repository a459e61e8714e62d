import type { EmbeddingModel, LanguageModel } from 'ai';
import type { ProviderPackage } from './catalog.js';

/** What a provider factory needs: where to send requests and the key (never logged). */
export interface ProviderOptions {
  apiKey?: string;
  baseURL?: string;
  /** Tests and benches: a fetch of their own (the loopback server needs none). */
  fetch?: typeof globalThis.fetch;
}

/** The parts of an `ai` SDK provider brv uses (their own types differ only in model-id unions). */
interface SdkProvider {
  (modelId: string): LanguageModel;
  chat?: (modelId: string) => LanguageModel;
  embeddingModel?: (modelId: string) => EmbeddingModel;
  textEmbeddingModel?: (modelId: string) => EmbeddingModel;
}

/**
 * The SDK provider for a package, loaded on first use: each is imported only by the command that
 * talks to it, so no command without a model pays for any of them.
 */
export async function loadProvider(pkg: ProviderPackage, options: ProviderOptions): Promise<SdkProvider> {
  const settings = {
    ...(options.apiKey !== undefined ? { apiKey: options.apiKey } : {}),
    ...(options.baseURL !== undefined ? { baseURL: options.baseURL } : {}),
    ...(options.fetch ? { fetch: options.fetch } : {}),
  };
  const as = (provider: unknown) => provider as SdkProvider;
  switch (pkg) {
    case 'openai':
      return as((await import('@ai-sdk/openai')).createOpenAI(settings));
    case 'anthropic':
      return as((await import('@ai-sdk/anthropic')).createAnthropic(settings));
    case 'google':
      return as((await import('@ai-sdk/google')).createGoogleGenerativeAI(settings));
    case 'mistral':
      return as((await import('@ai-sdk/mistral')).createMistral(settings));
    case 'groq':
      return as((await import('@ai-sdk/groq')).createGroq(settings));
    case 'xai':
      return as((await import('@ai-sdk/xai')).createXai(settings));
    case 'deepseek':
      return as((await import('@ai-sdk/deepseek')).createDeepSeek(settings));
    case 'openrouter':
      return as((await import('@openrouter/ai-sdk-provider')).createOpenRouter(settings));
    case 'togetherai':
      return as((await import('@ai-sdk/togetherai')).createTogetherAI(settings));
    case 'fireworks':
      return as((await import('@ai-sdk/fireworks')).createFireworks(settings));
    case 'cerebras':
      return as((await import('@ai-sdk/cerebras')).createCerebras(settings));
    case 'openai-compatible':
      return as(
        (await import('@ai-sdk/openai-compatible')).createOpenAICompatible({
          name: 'openai-compatible',
          baseURL: options.baseURL ?? '',
          includeUsage: true,
          ...(options.apiKey ? { apiKey: options.apiKey } : {}),
          ...(options.fetch ? { fetch: options.fetch } : {}),
        }),
      );
  }
}

/**
 * The chat model. OpenAI behind a base URL of the user's (a proxy, Azure-style gateways) is spoken
 * to with Chat Completions, which every compatible server implements; api.openai.com itself with
 * the SDK's default (Responses).
 */
export function languageModel(provider: SdkProvider, pkg: ProviderPackage, model: string, customBaseUrl: boolean): LanguageModel {
  if (pkg === 'openai' && customBaseUrl && provider.chat) return provider.chat(model);
  return provider(model);
}

export function embeddingModel(provider: SdkProvider, model: string): EmbeddingModel | undefined {
  const make = provider.embeddingModel ?? provider.textEmbeddingModel;
  return make?.call(provider, model);
}
