// Keyboard shortcuts: `/` focuses search; `g` then `k`, `s`, `c`, `r`, `b` or `e` goes to a page.
// Pure: no DOM, tested in test/web/client-keys.test.ts.
import type { Page } from './routes.js';

export type KeyAction = { type: 'focus-search' } | { type: 'go'; page: Page };

const GO: Record<string, Page> = { k: 'knowledge', s: 'search', c: 'changes', r: 'reviews', b: 'branches', e: 'setup' };
const SEQUENCE_MS = 1500;

export class KeySequence {
  private gAt: number | null = null;

  /** The action of a key pressed outside text fields (no modifier), or null. */
  press(key: string, now: number): KeyAction | null {
    const afterG = this.gAt !== null && now - this.gAt <= SEQUENCE_MS;
    this.gAt = null;
    if (afterG && Object.hasOwn(GO, key)) return { type: 'go', page: GO[key]! };
    if (key === 'g') {
      this.gAt = now;
      return null;
    }
    if (key === '/') return { type: 'focus-search' };
    return null;
  }
}
