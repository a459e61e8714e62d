import type { Price } from './prices.js';

/** The `ai` SDK provider package a provider is reached through (loaded only when used: src/models/llm/models.ts). */
export type ProviderPackage =
  | 'openai'
  | 'anthropic'
  | 'google'
  | 'mistral'
  | 'groq'
  | 'xai'
  | 'deepseek'
  | 'openrouter'
  | 'togetherai'
  | 'fireworks'
  | 'cerebras'
  | 'openai-compatible';

export interface ProviderSpec {
  /** As ByteRover names it: `brv providers connect <id>`. */
  id: string;
  name: string;
  package: ProviderPackage;
  /** Environment variables read for the key, first found wins. */
  keyVariables: readonly string[];
  /** Local servers (Ollama, LM Studio, …) often need no key. */
  keyOptional?: boolean;
  /** Needs `--base-url` (an OpenAI-compatible server). */
  needsBaseUrl?: boolean;
  /** The host a key is filed under in git's credential helper. */
  credentialHost: string;
  defaultModel: string;
  /** Well-known models, for `brv model list` and completion; any id the provider accepts works. */
  models: readonly string[];
  /** The embedding model hybrid retrieval uses when `--embedding-model` is not given (none: hybrid off). */
  defaultEmbeddingModel?: string;
  prices?: Readonly<Record<string, Price>>;
}

/** Every provider brv can connect, in the order `brv providers list` shows them. */
export const PROVIDERS: readonly ProviderSpec[] = [
  {
    id: 'openai',
    name: 'OpenAI',
    package: 'openai',
    keyVariables: ['OPENAI_API_KEY'],
    credentialHost: 'api.openai.com',
    defaultModel: 'gpt-5-mini',
    models: ['gpt-5', 'gpt-5-mini', 'gpt-5-nano', 'gpt-4.1', 'gpt-4.1-mini', 'gpt-4o', 'gpt-4o-mini', 'o4-mini'],
    defaultEmbeddingModel: 'text-embedding-3-small',
    prices: {
      'gpt-5': { input: 1.25, output: 10 },
      'gpt-5-mini': { input: 0.25, output: 2 },
      'gpt-5-nano': { input: 0.05, output: 0.4 },
      'gpt-4.1': { input: 2, output: 8 },
      'gpt-4.1-mini': { input: 0.4, output: 1.6 },
      'gpt-4o': { input: 2.5, output: 10 },
      'gpt-4o-mini': { input: 0.15, output: 0.6 },
    },
  },
  {
    id: 'anthropic',
    name: 'Anthropic',
    package: 'anthropic',
    keyVariables: ['ANTHROPIC_API_KEY'],
    credentialHost: 'api.anthropic.com',
    defaultModel: 'claude-sonnet-4-5',
    models: ['claude-opus-4-1', 'claude-sonnet-4-5', 'claude-haiku-4-5'],
    prices: {
      'claude-opus-4-1': { input: 15, output: 75 },
      'claude-sonnet-4-5': { input: 3, output: 15 },
      'claude-haiku-4-5': { input: 1, output: 5 },
    },
  },
  {
    id: 'google',
    name: 'Google Gemini',
    package: 'google',
    keyVariables: ['GOOGLE_GENERATIVE_AI_API_KEY', 'GEMINI_API_KEY'],
    credentialHost: 'generativelanguage.googleapis.com',
    defaultModel: 'gemini-2.5-flash',
    models: ['gemini-2.5-pro', 'gemini-2.5-flash', 'gemini-2.5-flash-lite'],
    defaultEmbeddingModel: 'gemini-embedding-001',
    prices: {
      'gemini-2.5-pro': { input: 1.25, output: 10 },
      'gemini-2.5-flash': { input: 0.3, output: 2.5 },
      'gemini-2.5-flash-lite': { input: 0.1, output: 0.4 },
    },
  },
  {
    id: 'mistral',
    name: 'Mistral',
    package: 'mistral',
    keyVariables: ['MISTRAL_API_KEY'],
    credentialHost: 'api.mistral.ai',
    defaultModel: 'mistral-medium-latest',
    models: ['mistral-large-latest', 'mistral-medium-latest', 'mistral-small-latest', 'codestral-latest'],
    defaultEmbeddingModel: 'mistral-embed',
  },
  {
    id: 'groq',
    name: 'Groq',
    package: 'groq',
    keyVariables: ['GROQ_API_KEY'],
    credentialHost: 'api.groq.com',
    defaultModel: 'llama-3.3-70b-versatile',
    models: ['llama-3.3-70b-versatile', 'llama-3.1-8b-instant', 'openai/gpt-oss-120b', 'openai/gpt-oss-20b'],
  },
  {
    id: 'xai',
    name: 'xAI Grok',
    package: 'xai',
    keyVariables: ['XAI_API_KEY'],
    credentialHost: 'api.x.ai',
    defaultModel: 'grok-4',
    models: ['grok-4', 'grok-3', 'grok-3-mini'],
  },
  {
    id: 'deepseek',
    name: 'DeepSeek',
    package: 'deepseek',
    keyVariables: ['DEEPSEEK_API_KEY'],
    credentialHost: 'api.deepseek.com',
    defaultModel: 'deepseek-chat',
    models: ['deepseek-chat', 'deepseek-reasoner'],
  },
  {
    id: 'openrouter',
    name: 'OpenRouter',
    package: 'openrouter',
    keyVariables: ['OPENROUTER_API_KEY'],
    credentialHost: 'openrouter.ai',
    defaultModel: 'openai/gpt-5-mini',
    models: ['openai/gpt-5-mini', 'anthropic/claude-sonnet-4.5', 'google/gemini-2.5-flash', 'meta-llama/llama-3.3-70b-instruct'],
  },
  {
    id: 'togetherai',
    name: 'Together AI',
    package: 'togetherai',
    keyVariables: ['TOGETHER_AI_API_KEY', 'TOGETHER_API_KEY'],
    credentialHost: 'api.together.xyz',
    defaultModel: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    models: ['meta-llama/Llama-3.3-70B-Instruct-Turbo', 'Qwen/Qwen2.5-72B-Instruct-Turbo', 'deepseek-ai/DeepSeek-V3'],
    defaultEmbeddingModel: 'BAAI/bge-base-en-v1.5',
  },
  {
    id: 'fireworks',
    name: 'Fireworks',
    package: 'fireworks',
    keyVariables: ['FIREWORKS_API_KEY'],
    credentialHost: 'api.fireworks.ai',
    defaultModel: 'accounts/fireworks/models/llama-v3p3-70b-instruct',
    models: [
      'accounts/fireworks/models/llama-v3p3-70b-instruct',
      'accounts/fireworks/models/deepseek-v3',
      'accounts/fireworks/models/qwen3-235b-a22b',
    ],
    defaultEmbeddingModel: 'nomic-ai/nomic-embed-text-v1.5',
  },
  {
    id: 'cerebras',
    name: 'Cerebras',
    package: 'cerebras',
    keyVariables: ['CEREBRAS_API_KEY'],
    credentialHost: 'api.cerebras.ai',
    defaultModel: 'llama-3.3-70b',
    models: ['llama-3.3-70b', 'llama3.1-8b', 'gpt-oss-120b', 'qwen-3-32b'],
  },
  {
    id: 'openai-compatible',
    name: 'OpenAI-compatible server (Ollama, LM Studio, vLLM, llama.cpp, …)',
    package: 'openai-compatible',
    keyVariables: ['OPENAI_COMPATIBLE_API_KEY'],
    keyOptional: true,
    needsBaseUrl: true,
    credentialHost: 'openai-compatible.local',
    defaultModel: 'llama3.1',
    models: [],
  },
];

/** A provider by id or name, any case; `ollama`, `lmstudio`, `vllm` and `llama.cpp` name the OpenAI-compatible one. */
export function findProvider(name: string): ProviderSpec | undefined {
  const wanted = name.trim().toLowerCase();
  const alias = LOCAL_SERVERS[wanted] ? 'openai-compatible' : wanted;
  return PROVIDERS.find((spec) => spec.id === alias || spec.name.toLowerCase() === alias);
}

/** Local OpenAI-compatible servers by name, with the base URL they listen on by default. */
export const LOCAL_SERVERS: Readonly<Record<string, string>> = {
  ollama: 'http://127.0.0.1:11434/v1',
  lmstudio: 'http://127.0.0.1:1234/v1',
  'lm-studio': 'http://127.0.0.1:1234/v1',
  vllm: 'http://127.0.0.1:8000/v1',
  'llama.cpp': 'http://127.0.0.1:8080/v1',
  llamacpp: 'http://127.0.0.1:8080/v1',
};

export function priceOf(spec: ProviderSpec, model: string): Price | undefined {
  return spec.prices?.[model];
}
