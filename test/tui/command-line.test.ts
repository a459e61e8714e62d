import test from 'ava';
import { CommandLineError, parseCommandLine, splitWords } from '../../src/tui/command-line.js';
import { COMMANDS } from '../../src/tui/commands.js';

test('words split on spaces; quotes keep spaces inside one', (t) => {
  t.deepEqual(splitWords(`/rm "a b/c" --reason 'no longer true'  x`), ['/rm', 'a b/c', '--reason', 'no longer true', 'x']);
  t.deepEqual(splitWords(`say ""`), ['say', '']);
  t.deepEqual(splitWords('   '), []);
});

test('slash commands parse against their specs: sub-commands, options with values, flags', (t) => {
  t.deepEqual(parseCommandLine('/vc log security --limit 5 --all', COMMANDS), {
    name: 'vc',
    subcommand: 'log',
    args: ['security'],
    options: { '--limit': '5', '--all': true },
  });
  t.deepEqual(parseCommandLine('/search how do we deploy --scope=ops', COMMANDS), {
    name: 'search',
    args: ['how', 'do', 'we', 'deploy'],
    options: { '--scope': 'ops' },
  });
  t.deepEqual(parseCommandLine('/help', COMMANDS), { name: 'help', args: [], options: {} });
});

test('bad command lines say what is wrong and what there is', (t) => {
  const fails = (line: string, message: RegExp) => {
    const error = t.throws(() => parseCommandLine(line, COMMANDS), { instanceOf: CommandLineError });
    t.regex(error!.message, message, line);
  };
  fails('/reveiw', /No command \/reveiw\. Did you mean \/read, \/review\?/);
  fails('/vc', /\/vc needs a sub-command: log, diff, status, branch, checkout, merge/);
  fails('/vc blame x', /\/vc has no sub-command blame/);
  fails('/ls a b', /\/ls takes at most 1/);
  fails('/doctor now', /\/doctor takes no arguments/);
  fails('/rm x --force', /\/rm has no option --force\. Its options: --recursive, --reason/);
  fails('/rm x --reason', /--reason needs a value/);
  fails('/rm x --recursive=yes', /--recursive takes no value/);
});
