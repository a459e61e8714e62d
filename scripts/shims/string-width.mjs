// Build-time stand-in for `string-width`, which yargs' help layout imports. The real package loads
// emoji and East-Asian-width tables that cost ~60 ms at every brv start (measured: docs/decisions/0002-startup-launcher-code-cache.md)
// and matter only for laying out --help columns; brv's help text is its own plain prose.
import { stripVTControlCharacters } from 'node:util';

export default function stringWidth(text) {
  if (typeof text !== 'string' || text.length === 0) return 0;
  let width = 0;
  for (const char of stripVTControlCharacters(text)) {
    const code = char.codePointAt(0);
    if (code < 0x20 || (code >= 0x7f && code < 0xa0) || (code >= 0x300 && code < 0x370) || code === 0x200b) continue;
    // Wide: CJK, Hangul, full-width forms, emoji.
    width +=
      (code >= 0x1100 && code <= 0x115f) ||
      (code >= 0x2e80 && code <= 0xa4cf) ||
      (code >= 0xac00 && code <= 0xd7a3) ||
      (code >= 0xf900 && code <= 0xfaff) ||
      (code >= 0xff00 && code <= 0xff60) ||
      (code >= 0x1f300 && code <= 0x1faff)
        ? 2
        : 1;
  }
  return width;
}
