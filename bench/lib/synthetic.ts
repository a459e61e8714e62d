/**
 * Deterministic synthetic context trees: realistic engineering prose spread over domains, so
 * benchmarks at 100 … 100,000 topics are reproducible run to run and machine to machine.
 */
function prng(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let x = state;
    x = Math.imul(x ^ (x >>> 15), x | 1);
    x ^= x + Math.imul(x ^ (x >>> 7), x | 61);
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296;
  };
}

const DOMAINS = [
  'security',
  'api',
  'database',
  'frontend',
  'infra',
  'testing',
  'billing',
  'search',
  'auth',
  'observability',
  'mobile',
  'payments',
  'messaging',
  'storage',
  'build',
  'release',
  'docs',
  'onboarding',
  'analytics',
  'caching',
];
const NOUNS = [
  'token',
  'session',
  'request',
  'handler',
  'migration',
  'index',
  'cache',
  'queue',
  'worker',
  'schema',
  'endpoint',
  'client',
  'service',
  'config',
  'secret',
  'bucket',
  'pipeline',
  'build',
  'release',
  'metric',
  'trace',
  'log',
  'alert',
  'retry',
  'timeout',
  'webhook',
  'invoice',
  'user',
  'tenant',
  'role',
  'permission',
  'feature flag',
  'rollout',
  'snapshot',
  'replica',
  'shard',
  'transaction',
  'lock',
  'event',
  'consumer',
];
const VERBS = [
  'validates',
  'rotates',
  'caches',
  'retries',
  'rejects',
  'signs',
  'encrypts',
  'batches',
  'streams',
  'throttles',
  'logs',
  'migrates',
  'invalidates',
  'replicates',
  'schedules',
  'deduplicates',
  'compresses',
  'paginates',
  'authorizes',
  'serializes',
];
const ADJECTIVES = [
  'idempotent',
  'expired',
  'stale',
  'signed',
  'encrypted',
  'partitioned',
  'read-only',
  'eventual',
  'strict',
  'lazy',
  'bounded',
  'versioned',
  'cold',
  'hot',
  'sharded',
  'atomic',
  'optional',
  'deprecated',
  'internal',
  'public',
];
const TOOLS = [
  'postgres',
  'redis',
  'kafka',
  'nginx',
  'terraform',
  'kubernetes',
  'jwt',
  'oauth',
  'grpc',
  'graphql',
  'webpack',
  'vite',
  'jest',
  'playwright',
  'sentry',
  'prometheus',
  'grafana',
  's3',
  'stripe',
  'elasticsearch',
];

function pick<T>(rand: () => number, list: readonly T[]): T {
  return list[Math.floor(rand() * list.length)]!;
}

function sentence(rand: () => number): string {
  const subject = `the ${pick(rand, ADJECTIVES)} ${pick(rand, NOUNS)}`;
  const object = `${pick(rand, NOUNS)}s`;
  const tail = rand() < 0.5 ? ` through ${pick(rand, TOOLS)}` : ` within ${2 + Math.floor(rand() * 58)} seconds`;
  const text = `${subject} ${pick(rand, VERBS)} ${object}${tail}`;
  return `${text.charAt(0).toUpperCase()}${text.slice(1)}.`;
}

function escape(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/"/g, '&quot;');
}

export interface SyntheticTopic {
  path: string;
  title: string;
  html: string;
}

export function syntheticTopic(index: number, seed = 1): SyntheticTopic {
  const rand = prng(seed * 1_000_003 + index);
  const domain = DOMAINS[index % DOMAINS.length]!;
  const noun = pick(rand, NOUNS).replace(/ /g, '_');
  const tool = pick(rand, TOOLS);
  const path = `${domain}/${noun}_${tool}_${index}`;
  const title = `${pick(rand, ADJECTIVES)} ${noun.replace(/_/g, ' ')} with ${tool} (${index})`;
  const rules = Array.from(
    { length: 1 + Math.floor(rand() * 3) },
    (_, i) => `<bv-rule severity="${pick(rand, ['must', 'should', 'info'])}" id="r${i}">${escape(sentence(rand))}</bv-rule>`,
  );
  const facts = Array.from({ length: 1 + Math.floor(rand() * 3) }, () => {
    const subject = `${pick(rand, NOUNS).replace(/ /g, '_')}_${pick(rand, ['ttl', 'limit', 'owner', 'version', 'region'])}`;
    const value = `${1 + Math.floor(rand() * 500)} ${pick(rand, ['seconds', 'requests', 'MB', 'replicas', 'days'])}`;
    return `<bv-fact subject="${subject}" category="project" value="${value}">${escape(sentence(rand))}</bv-fact>`;
  });
  const structure = `<bv-structure><h3>${escape(pick(rand, ADJECTIVES))} flow</h3><ul>${Array.from({ length: 3 }, () => `<li>${escape(sentence(rand))}</li>`).join('')}</ul></bv-structure>`;
  const decision =
    rand() < 0.5 ? `<bv-decision id="d1"><p>${escape(sentence(rand))}</p><p>${escape(sentence(rand))}</p></bv-decision>` : '';
  const html = `<bv-topic path="${path}" title="${escape(title)}" summary="${escape(sentence(rand))}" tags="${domain},${tool}" keywords="${noun},${pick(rand, NOUNS).replace(/ /g, '_')}">
  ${structure}
  ${rules.join('\n  ')}
  ${facts.join('\n  ')}
  ${decision}
  <bv-reason>${escape(sentence(rand))}</bv-reason>
</bv-topic>
`;
  return { path, title, html };
}

/** Writes `count` synthetic topics as `<path>.html` files below `dir` (the input of `brv import`). */
export async function writeSyntheticTopics(dir: string, count: number): Promise<void> {
  const { mkdir, writeFile } = await import('node:fs/promises');
  const { join, dirname } = await import('node:path');
  const made = new Set<string>();
  for (let i = 0; i < count; i++) {
    const topic = syntheticTopic(i);
    const file = join(dir, `${topic.path}.html`);
    if (!made.has(dirname(file))) {
      await mkdir(dirname(file), { recursive: true });
      made.add(dirname(file));
    }
    await writeFile(file, topic.html);
  }
}

/** Questions an agent might ask of a synthetic tree of `size` topics: each about one real topic. */
export function syntheticQuestions(size: number, count: number): string[] {
  const rand = prng(size);
  return Array.from({ length: count }, () => {
    const topic = syntheticTopic(Math.floor(rand() * size));
    const words = topic.title
      .replace(/[()0-9]/g, ' ')
      .split(/\s+/)
      .filter((w) => w.length > 2);
    return `how do we handle ${words.slice(0, 3).join(' ')}`;
  });
}
