/** The output of `git config -z --get-regexp`: NUL-terminated entries, each the key, a newline and the value. */
export function parseConfigList(stdout: string): Array<{ key: string; value: string }> {
  return stdout
    .split('\0')
    .filter(Boolean)
    .map((entry) => {
      const newline = entry.indexOf('\n');
      return newline < 0 ? { key: entry, value: '' } : { key: entry.slice(0, newline), value: entry.slice(newline + 1) };
    });
}
