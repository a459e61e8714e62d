import test from 'ava';
import { Text } from 'ink';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { CrashBoundary } from '../../src/tui/boundary.js';

function Thrower(): never {
  throw new Error('drawing failed');
}

test('a bug while drawing stops the REPL and is handed to the front end, with no stack on screen', async (t) => {
  const crashes: unknown[] = [];
  const quiet = console.error;
  console.error = () => {}; // React logs the caught error; the front end reports it instead
  try {
    const app = render(createElement(CrashBoundary, { onCrash: (error: unknown) => crashes.push(error) }, createElement(Thrower)));
    await new Promise((resolve) => setTimeout(resolve, 50));
    t.is(crashes.length, 1);
    t.is((crashes[0] as Error).message, 'drawing failed');
    t.notRegex(app.lastFrame() ?? '', /drawing failed|at Thrower/);
    app.unmount();
    const fine = render(
      createElement(CrashBoundary, { onCrash: (error: unknown) => crashes.push(error) }, createElement(Text, null, 'drawn')),
    );
    t.regex(fine.lastFrame() ?? '', /drawn/);
    fine.unmount();
    t.is(crashes.length, 1);
  } finally {
    console.error = quiet;
  }
});
