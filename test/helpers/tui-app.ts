import type { ExecutionContext } from 'ava';
import { render } from 'ink-testing-library';
import { createElement } from 'react';
import { App, type RefChange } from '../../src/tui/app.js';
import { InputHistory } from '../../src/tui/input-history.js';
import { cleanup } from './repo.js';
import { testService } from './service.js';

// The REPL as a component in ink's test renderer, against a real repository through the real service.

/** The App on `repo` (closed, and the repository removed, when the test ends). */
export function mountApp(
  t: ExecutionContext,
  repo: string,
  options: { noColor?: boolean; history?: string[]; editTopic?: (path: string) => Promise<any> } = {},
) {
  const pool = testService.pool(repo, { serverName: 'brv tui' });
  const listeners = new Set<(change: RefChange) => void>();
  const saved: string[] = [];
  let exited = 0;
  const app = render(
    createElement(App, {
      context: { service: testService, brv: () => pool.resolve(undefined), actor: { agent: 'tui-test' }, cwd: repo },
      history: new InputHistory(options.history ?? []),
      saveHistory: (line: string) => saved.push(line),
      subscribe: (listener: (change: RefChange) => void) => {
        listeners.add(listener);
        return () => listeners.delete(listener);
      },
      noColor: options.noColor ?? false,
      onExit: () => exited++,
      ...(options.editTopic ? { editTopic: options.editTopic } : {}),
    }),
  );
  const frame = () => app.lastFrame() ?? '';
  /** Waits until the screen shows `pattern` (the work behind it is real: git, the index). */
  const see = async (pattern: RegExp, timeout = 15_000): Promise<string> => {
    const start = Date.now();
    while (!pattern.test(frame())) {
      if (Date.now() - start > timeout) throw new Error(`never saw ${pattern}; the screen:\n${frame()}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    return frame();
  };
  const type = async (text: string) => {
    app.stdin.write(text);
    await new Promise((resolve) => setTimeout(resolve, 30));
  };
  t.teardown(async () => {
    app.unmount();
    await pool.close();
    await cleanup(repo);
  });
  return {
    app,
    frame,
    see,
    type,
    saved,
    exits: () => exited,
    change: (change: RefChange) => listeners.forEach((l) => l(change)),
  };
}
