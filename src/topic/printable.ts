/**
 * Control characters (C0, tab and newline included; DEL; C1) and the bidirectional overrides that
 * reorder what a terminal shows.
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE = /[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g;

/**
 * Text as a terminal may receive it, on one line: every control character (an escape sequence, a
 * bell, a line break) and bidirectional override becomes U+FFFD, visibly. For text brv did not write
 * (a commit from a push) and for everything a terminal front end draws.
 */
export function printable(text: string): string {
  return text.replace(UNPRINTABLE, '\uFFFD');
}
