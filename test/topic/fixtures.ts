import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/topics/', import.meta.url));

export function htmlFixtures(kind: 'valid' | 'invalid'): Array<{ name: string; html: string }> {
  return readdirSync(`${FIXTURES}${kind}`)
    .filter((name) => name.endsWith('.html'))
    .sort()
    .map((name) => ({ name, html: readFileSync(`${FIXTURES}${kind}/${name}`, 'utf8') }));
}

export function fixture(kind: 'valid' | 'invalid', name: string): string {
  return readFileSync(`${FIXTURES}${kind}/${name}`, 'utf8');
}
