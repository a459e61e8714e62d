// The REPL: a prompt for questions and slash commands, the screen above it (results, a topic, a
// command's output, the review), and a status line kept live by the repository's ref events.
import { Box, Text, useApp, useCursor, useInput, useStdout, type Key } from 'ink';
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { isBrvError } from '../base/errors.js';
import type { CheckHtmlResult } from '../service/knowledge.js';
import type { ReviewListWithDiffs } from '../service/review.js';
import type { RefChangeEvent } from '../service/repository-pool.js';
import { CommandLineError, parseCommandLine, type ArgKind } from './command-line.js';
import { COMMANDS, runCommand, searchOutcome, type CommandContext, type Outcome, type ResultItem } from './commands.js';
import { complete } from './completion.js';
import { helpMarkdown } from './help.js';
import type { InputHistory } from './input-history.js';
import { backspacesIn, cleanInput, editLine, EMPTY_LINE, type Line, type LineEdit } from './line-editor.js';
import { EMPTY_FORM, FIELDS, formGap, formHtml, formMeta, KINDS, type CurateForm, type TextField } from '../views/curate-form.js';
import {
  clampOffset,
  CurateScreen,
  FIELD_LABEL_WIDTH,
  Pager,
  RESULT_ROWS,
  ResultsList,
  ReviewScreen,
  reviewLines,
  chosenConflict,
  openConflicts,
  type ReviewConflicts,
  type ReviewPosition,
} from './screens.js';
import { NO_VALUES, readRepository, statusText, workTreeFiles, type CompletionValues, type StatusFacts } from './status.js';
import { editText } from '../views/edit.js';
import { printable } from '../topic/printable.js';
import { mark } from '../base/trace.js';
import { plainLine, renderTerminalMarkdown, widthOf, wrapPlainText, type StyledLine } from './terminal-markdown.js';

/** A ref that moved, as the repository's watch reports it (typed: a branch, a review, a remote's copy …). */
export type RefChange = RefChangeEvent;

export interface AppProps {
  context: Omit<CommandContext, 'progress' | 'signal'>;
  history: InputHistory;
  /** Persists an entered line (errors are the caller's to swallow). */
  saveHistory(line: string): void;
  /** Live ref changes; returns the unsubscribe. */
  subscribe(listener: (change: RefChange) => void): () => void;
  noColor: boolean;
  /**
   * Runs the person's editor on a topic with the terminal handed over (`/edit`): the App stops reading
   * keys first, and draws itself again afterwards. Absent: `/edit` says where to edit instead.
   */
  editTopic?(path: string): Promise<SavedEditView>;
  /** Called once the App has unmounted itself (exit). */
  onExit?(): void;
}

type SavedEditView = Parameters<typeof editText>[0];

type Screen =
  | { type: 'home' }
  | { type: 'results'; title: string; question: string; items: ResultItem[]; selected: number }
  | { type: 'pager'; title: string; markdown?: string; text?: string; offset: number; topic?: string; source?: string }
  | { type: 'review'; list?: ReviewListWithDiffs; conflicts?: ReviewConflicts; at: ReviewPosition; startAt?: string }
  | { type: 'curate'; form: CurateForm; field: number; cursor: number; check?: CheckHtmlResult; saving: boolean };

/** A Ctrl-R history search: what is typed, and the history line it found. */
interface HistorySearch {
  query: string;
  match?: { index: number; line: string };
}

interface Message {
  tone: 'error' | 'info';
  text: string;
}

const HOME: Screen = { type: 'home' };
/** No key but the character typed (for keys replayed from a chunk). */
const NO_KEY: Key = {
  upArrow: false,
  downArrow: false,
  leftArrow: false,
  rightArrow: false,
  pageDown: false,
  pageUp: false,
  home: false,
  end: false,
  return: false,
  escape: false,
  ctrl: false,
  shift: false,
  tab: false,
  backspace: false,
  delete: false,
  meta: false,
  super: false,
  hyper: false,
  capsLock: false,
  numLock: false,
};
/** Ctrl-C twice within this: leave. */
const EXIT_WINDOW_MS = 2000;
const NOTIFICATION_MS = 8000;
const PROMPT = '› ';

function errorMessage(error: unknown): Message {
  if (error instanceof CommandLineError) return { tone: 'error', text: error.message };
  if (isBrvError(error)) return { tone: 'error', text: `${error.kind}: ${error.message}` };
  return { tone: 'error', text: error instanceof Error ? error.message : String(error) };
}

/** The edit a key makes to the prompt line, if it is one. */
function lineEditFor(input: string, key: Key): LineEdit | undefined {
  if (key.ctrl) {
    switch (input) {
      case 'a':
        return { type: 'home' };
      case 'e':
        return { type: 'end' };
      case 'u':
        return { type: 'kill-before' };
      case 'k':
        return { type: 'kill-after' };
      case 'w':
        return { type: 'kill-word' };
      case 'b':
        return { type: 'left' };
      case 'f':
        return { type: 'right' };
      default:
        return undefined;
    }
  }
  if (key.meta && (input === 'b' || input === 'f')) return { type: input === 'b' ? 'word-left' : 'word-right' };
  // Most terminals send DEL for Backspace, which ink reads as `delete`: both erase backwards.
  if (key.backspace || key.delete) return { type: 'backspace' };
  if (!key.ctrl && !key.meta && backspacesIn(input) > 0) return { type: 'backspace', count: backspacesIn(input) };
  if (key.leftArrow) return { type: key.meta ? 'word-left' : 'left' };
  if (key.rightArrow) return { type: key.meta ? 'word-right' : 'right' };
  if (key.home) return { type: 'home' };
  if (key.end) return { type: 'end' };
  if (input && !key.meta && !key.escape && !key.return && !key.tab) return { type: 'insert', text: input };
  return undefined;
}

/**
 * A note or error as rows of the terminal's width, wide characters counted as two columns; more than
 * `max` rows end in "…" on the last.
 */
function messageLines(text: string, width: number, max: number): string[] {
  const lines = wrapPlainText(text, width).map(plainLine);
  if (lines.length <= max) return lines;
  const kept = lines.slice(0, max);
  let last = kept[max - 1]!;
  while (last !== '' && widthOf(`${last}…`) > width) last = [...last].slice(0, -1).join('');
  kept[max - 1] = `${last}…`;
  return kept;
}

/** Lines of a pager screen for a width (laid out again when the terminal is resized). */
function pagerLines(screen: Extract<Screen, { type: 'pager' }>, width: number): StyledLine[] {
  if (screen.markdown !== undefined) return renderTerminalMarkdown(screen.markdown, width);
  return wrapPlainText(screen.text ?? '', width);
}

export function App({ context, history, saveHistory, subscribe, noColor, editTopic, onExit }: AppProps) {
  const { exit } = useApp();
  const { stdout } = useStdout();
  const [size, setSize] = useState({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
  const [line, setLineState] = useState<Line>(EMPTY_LINE);
  // The line and the screens as the last key left them. Keys read in one chunk (a paste that ends in
  // Enter, a held arrow, a loaded machine) are all handled before the next render: each must see what
  // the one before it did, so key handling reads these, and the state only draws them.
  const lineNow = useRef<Line>(EMPTY_LINE);
  const setLine = useCallback((next: Line | ((current: Line) => Line)) => {
    lineNow.current = typeof next === 'function' ? next(lineNow.current) : next;
    setLineState(lineNow.current);
  }, []);
  const [choices, setChoices] = useState<string[]>([]);
  const [screens, setScreensState] = useState<Screen[]>([HOME]);
  const screensNow = useRef<Screen[]>([HOME]);
  const setScreens = useCallback((next: Screen[] | ((current: Screen[]) => Screen[])) => {
    screensNow.current = typeof next === 'function' ? next(screensNow.current) : next;
    setScreensState(screensNow.current);
  }, []);
  /** The top screen as the last key left it (see lineNow). */
  const screenNow = () => screensNow.current[screensNow.current.length - 1]!;
  const [message, setMessage] = useState<Message | undefined>();
  const [notification, setNotification] = useState<string | undefined>();
  const [status, setStatus] = useState<StatusFacts | undefined>();
  const [busy, setBusy] = useState<{ id: number; label: string; progress?: string } | undefined>();
  const [search, setSearchState] = useState<HistorySearch | undefined>();
  /** The Ctrl-R search as the last key left it (see lineNow). */
  const searchNow = useRef<HistorySearch | undefined>(undefined);
  const setSearch = useCallback((next: HistorySearch | undefined) => {
    searchNow.current = next;
    setSearchState(next);
  }, []);
  /** The terminal is handed to an editor: keys are not read (ink lets go of stdin and raw mode). */
  const [suspended, setSuspended] = useState(false);
  const released = useRef<(() => void) | undefined>(undefined);
  const frozen = useRef<React.JSX.Element | null>(null);
  useEffect(() => {
    if (suspended) released.current?.();
  }, [suspended]);
  const exitArmed = useRef(0);
  /** A y/N question waiting for its key (`/rm`): the next key answers it, whatever screen is up. */
  const confirmNow = useRef<Extract<Outcome, { type: 'confirm' }> | undefined>(undefined);
  const deciding = useRef(false);
  const runId = useRef(0);
  /** Cancels the running work when it can be (a self-driven curate): Ctrl-C aborts it. */
  const running = useRef<AbortController | undefined>(undefined);
  const values = useRef<CompletionValues>(NO_VALUES);
  /** The work tree's files for `@` completion: read after the first paint and after each curate. */
  const files = useRef<string[]>([]);
  const screensRef = useRef(screens);
  screensRef.current = screens;
  const { setCursorPosition } = useCursor();
  const screen = screens[screens.length - 1]!;

  useEffect(() => {
    const onResize = () => setSize({ columns: stdout.columns || 80, rows: stdout.rows || 24 });
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout]);

  const width = Math.max(20, size.columns);
  const choiceRows = choices.length === 0 ? 0 : Math.min(3, Math.ceil(choices.join('  ').length / width));
  // The line under the screen (what runs, a note, an error) is wrapped, not cut: the end of a note is
  // often what helps (where an abandoned edit was kept, the cost). It takes up to a third of the rows.
  const below = busy
    ? `${busy.label}${busy.progress ? ` ${busy.progress}` : ''} (Ctrl-C stops)`
    : message
      ? message.text
      : notification
        ? `● ${notification}`
        : '';
  const belowLines = messageLines(printable(below), width, Math.max(1, Math.floor(size.rows / 3)));
  // The frame stays a line short of the terminal: ink redraws the whole screen for taller output.
  const mainHeight = Math.max(3, size.rows - 1 - 2 - belowLines.length - choiceRows);

  const leave = useCallback(() => {
    exit();
    onExit?.();
  }, [exit, onExit]);

  /** The status line and the completion values, read together after the first paint and after every change. */
  const refresh = useCallback(async () => {
    try {
      const brv = await context.brv();
      const read = await readRepository(brv);
      values.current = read.values;
      // In the background: the status line does not wait for a large tree's listing.
      void workTreeFiles(brv.repository.workTree).then((found) => (files.current = found));
      setStatus(read.facts);
      mark('tui: status read');
    } catch (error) {
      setMessage(errorMessage(error));
    }
  }, [context]);

  const push = useCallback((next: Screen) => setScreens((stack) => [...stack, next]), []);
  const replaceTop = useCallback(
    (update: (top: Screen) => Screen) => setScreens((stack) => [...stack.slice(0, -1), update(stack[stack.length - 1]!)]),
    [],
  );
  const back = useCallback(() => setScreens((stack) => (stack.length > 1 ? stack.slice(0, -1) : stack)), []);

  const readTopic = useCallback(
    async (path: string, source?: string): Promise<Screen> => {
      const read = await (await context.brv()).knowledge.read({ path, ...(source ? { source } : {}) });
      const where = source ? `${source}: ${read.topicPath} (read-only, from the knowledge source ${source})` : read.topicPath;
      return {
        type: 'pager',
        title: `${where} · ${read.commit.slice(0, 8)}`,
        markdown: read.content,
        offset: 0,
        topic: read.topicPath,
        ...(source ? { source } : {}),
      };
    },
    [context],
  );

  const loadReview = useCallback(async () => {
    const brv = await context.brv();
    const list = await brv.review.pendingWithDiffs();
    // A merge review's topics keep both versions, marked, until someone picks: the conflicts each still carries.
    const merges = list.tasks.filter((t) => !t.gated && t.operations.some((op) => op.type === 'MERGE'));
    const found = await Promise.all(merges.map((t) => brv.review.conflicts({ id: t.taskId }).catch(() => undefined)));
    const conflicts: ReviewConflicts = new Map(
      found.flatMap((shown) =>
        shown ? [[shown.taskId, new Map(shown.topics.map((topic) => [topic.path, topic.conflicts]))] as const] : [],
      ),
    );
    const asked = screensRef.current.find((sc): sc is Extract<Screen, { type: 'review' }> => sc.type === 'review')?.startAt;
    if (asked !== undefined && !list.tasks.some((t) => t.taskId.startsWith(asked)))
      setMessage({ tone: 'error', text: `No pending review ${asked}: here are all of them.` });
    setScreens((stack) =>
      stack.map((s) => {
        if (s.type !== 'review') return s;
        // `/review <id>`: that review first (an id prefix is enough), once.
        const wanted = s.startAt === undefined ? -1 : list.tasks.findIndex((t) => t.taskId.startsWith(s.startAt!));
        if (s.startAt !== undefined) return { type: 'review', list, conflicts, at: { task: Math.max(0, wanted), op: 0, offset: 0 } };
        const task = Math.min(s.at.task, Math.max(0, list.tasks.length - 1));
        const op = Math.min(s.at.op, Math.max(0, (list.tasks[task]?.operations.length ?? 1) - 1));
        const same = task === s.at.task && op === s.at.op;
        return {
          ...s,
          list,
          conflicts,
          at: { task, op, offset: same ? s.at.offset : 0, ...(same && s.at.section ? { section: s.at.section } : {}) },
        };
      }),
    );
  }, [context]);

  /** Runs async work as the one busy task: Ctrl-C drops its result. */
  const run = useCallback(
    async <T,>(
      label: string,
      work: (progress: (text: string | undefined) => void, signal: AbortSignal) => Promise<T>,
    ): Promise<T | undefined> => {
      const id = ++runId.current;
      const controller = new AbortController();
      running.current = controller;
      setBusy({ id, label });
      setMessage(undefined);
      try {
        const result = await work((text) => setBusy((b) => (b?.id === id ? { ...b, progress: text } : b)), controller.signal);
        return runId.current === id ? result : undefined;
      } catch (error) {
        if (runId.current === id) setMessage(errorMessage(error));
        return undefined;
      } finally {
        setBusy((b) => (b?.id === id ? undefined : b));
        if (running.current === controller) running.current = undefined;
      }
    },
    [],
  );

  const apply = useCallback(
    async (outcome: Outcome) => {
      switch (outcome.type) {
        case 'text':
          push({
            type: 'pager',
            title: outcome.title,
            ...(outcome.markdown ? { markdown: outcome.text } : { text: outcome.text }),
            offset: 0,
          });
          if (outcome.message) setMessage(outcome.message);
          return;
        case 'confirm':
          confirmNow.current = outcome;
          setMessage({ tone: 'info', text: outcome.question });
          return;
        case 'results':
          return push({ type: 'results', title: outcome.title, question: outcome.question, items: outcome.items, selected: 0 });
        case 'topic': {
          const opened = await run(`Opening ${outcome.path}…`, () => readTopic(outcome.path, outcome.source));
          if (opened) push(opened);
          if (outcome.note) setMessage({ tone: 'info', text: outcome.note });
          return;
        }
        case 'review':
          push({ type: 'review', at: { task: 0, op: 0, offset: 0 }, ...(outcome.id ? { startAt: outcome.id } : {}) });
          await run('Reading pending reviews…', loadReview);
          return;
        case 'note':
          setMessage({ tone: 'info', text: outcome.text });
          return;
        case 'curate': {
          const form = { ...EMPTY_FORM, path: outcome.path ?? '' };
          return push({ type: 'curate', form, field: outcome.path ? 1 : 0, cursor: 0, saving: false });
        }
        case 'edit': {
          if (!editTopic) {
            setMessage({ tone: 'error', text: `No editor here: run brv edit ${outcome.path} in a shell.` });
            return;
          }
          // ink's input effect runs after the render that deactivates it: wait for it, then hand over.
          await new Promise<void>((resolve) => {
            released.current = resolve;
            setSuspended(true);
          });
          try {
            const saved = await editTopic(outcome.path);
            setMessage({ tone: 'info', text: editText(saved) });
            const opened = await readTopic(saved.topicPath).catch(() => undefined);
            if (opened) push(opened);
          } catch (error) {
            setMessage(errorMessage(error));
          } finally {
            released.current = undefined;
            setSuspended(false);
          }
          void refresh();
          return;
        }
        case 'help':
          return push({ type: 'pager', title: 'Help', markdown: helpMarkdown(COMMANDS), offset: 0 });
        case 'exit':
          return leave();
      }
    },
    [push, run, readTopic, loadReview, leave, editTopic, refresh],
  );

  const submit = useCallback(
    async (text: string) => {
      const entered = text.trim();
      setChoices([]);
      setLine(EMPTY_LINE);
      if (entered === '') return;
      if (history.add(entered)) saveHistory(entered);
      let outcome: Outcome | undefined;
      if (entered.startsWith('/')) {
        let parsed;
        try {
          parsed = parseCommandLine(entered, COMMANDS);
        } catch (error) {
          setMessage(errorMessage(error));
          return;
        }
        outcome = await run(`${entered.split(' ')[0]}…`, (progress, signal) => runCommand({ ...context, progress, signal }, parsed));
      } else {
        outcome = await run('Searching…', (progress) => searchOutcome({ ...context, progress }, entered));
      }
      if (outcome) {
        await apply(outcome);
        if (outcome.type === 'note' || outcome.type === 'text' || (outcome.type === 'topic' && outcome.note)) {
          void refresh();
        }
      }
    },
    [history, saveHistory, run, context, apply, refresh],
  );

  // First paint first: the status and the completion values are read after it.
  useEffect(() => {
    const timer = setTimeout(() => {
      void refresh();
    }, 0);
    return () => clearTimeout(timer);
  }, [refresh]);

  // Live: what moved, said in one line, and what is on screen read again (a burst coalesced).
  useEffect(() => {
    let timer: NodeJS.Timeout | undefined;
    let notifyTimer: NodeJS.Timeout | undefined;
    const changes: RefChange[] = [];
    const settle = async () => {
      const moved = changes.splice(0);
      try {
        const brv = await context.brv();
        const onBranch = moved.find((c) => c.kind === 'branch' && c.branch === brv.branch && c.to);
        let note: string | undefined;
        if (onBranch) {
          const [entry] = await brv.history.log({ limit: 1 });
          if (entry) note = `${entry.meta.agent ?? entry.author.replace(/\s*<[^>]*>$/, '')}: ${entry.subject}`;
        } else if (moved.some((c) => c.kind === 'review')) {
          note = moved.some((c) => c.kind === 'review' && c.action === 'opened')
            ? 'A change is waiting for review (/review).'
            : 'A review was decided.';
        } else if (moved.some((c) => c.kind === 'branch')) note = 'Another brv branch moved.';
        if (note) {
          setMessage(undefined); // the newest line wins
          setNotification(note);
          clearTimeout(notifyTimer);
          notifyTimer = setTimeout(() => setNotification(undefined), NOTIFICATION_MS);
        }
        void refresh();
        const top = screensRef.current[screensRef.current.length - 1]!;
        if (top.type === 'pager' && top.topic && !top.source) {
          const topic = top.topic;
          const again = await readTopic(topic).catch(() => undefined);
          replaceTop((current) =>
            current.type === 'pager' && current.topic === topic
              ? again
                ? { ...again, offset: current.offset }
                : { ...current, title: `${topic} · removed since you opened it` }
              : current,
          );
        } else if (top.type === 'results') {
          const question = top.question;
          const fresh = await searchOutcome({ ...context, progress: () => {} }, question).catch(() => undefined);
          if (fresh?.type === 'results')
            replaceTop((current) =>
              current.type === 'results' && current.question === question
                ? { ...current, items: fresh.items, selected: Math.min(current.selected, Math.max(0, fresh.items.length - 1)) }
                : current,
            );
        } else if (top.type === 'review') await loadReview();
      } catch {
        // A change that cannot be read now is read with the next one.
      }
    };
    const unsubscribe = subscribe((change) => {
      changes.push(change);
      clearTimeout(timer);
      timer = setTimeout(() => void settle(), 150);
    });
    return () => {
      unsubscribe();
      clearTimeout(timer);
      clearTimeout(notifyTimer);
    };
  }, [subscribe, context, refresh, readTopic, replaceTop, loadReview]);

  // The curate form is checked as it is typed (the validator curate uses; nothing is written).
  const curateHtml = screen.type === 'curate' ? formHtml(screen.form) : undefined;
  useEffect(() => {
    if (curateHtml === undefined) return;
    const timer = setTimeout(() => {
      void (async () => {
        const check = await (await context.brv()).knowledge.checkHtml({ html: curateHtml }).catch(() => undefined);
        if (check) replaceTop((s) => (s.type === 'curate' && formHtml(s.form) === curateHtml ? { ...s, check } : s));
      })();
    }, 120);
    return () => clearTimeout(timer);
  }, [curateHtml, context, replaceTop]);

  const writeCurated = useCallback(async () => {
    const screen = screenNow();
    if (screen.type !== 'curate' || screen.saving) return;
    const { form } = screen;
    const gap = formGap(form);
    if (gap) return setMessage({ tone: 'error', text: gap });
    replaceTop((s) => (s.type === 'curate' ? { ...s, saving: true } : s));
    const result = await run('Curating…', async () =>
      (await context.brv()).knowledge.curateHtml({ html: formHtml(form), meta: formMeta(form) }, context.actor),
    );
    if (!result || !result.ok) {
      replaceTop((s) => (s.type === 'curate' ? { ...s, saving: false, ...(result ? { check: result } : {}) } : s));
      return;
    }
    const opened = await readTopic(result.topicPath).catch(() => undefined);
    setScreens((stack) => [...stack.filter((s) => s.type !== 'curate'), ...(opened ? [opened] : [])]);
    setMessage({
      tone: 'info',
      text: `Curated ${result.topicPath}${result.commit ? ` (${result.commit.slice(0, 8)})` : ''}${result.review ? `: review ${result.review.id} opened` : ''}.`,
    });
    void refresh();
  }, [screen, replaceTop, run, context, readTopic, refresh]);

  const decide = useCallback(
    async (decision: 'approve' | 'reject', whole: boolean) => {
      const screen = screenNow();
      if (screen.type !== 'review' || !screen.list) return;
      const task = screen.list.tasks[screen.at.task];
      const op = task?.operations[screen.at.op];
      if (!task || !op || deciding.current) return;
      deciding.current = true;
      const files = whole ? undefined : [op.path];
      const done = await run(`${decision === 'approve' ? 'Approving' : 'Rejecting'}…`, async () => {
        const brv = await context.brv();
        return decision === 'approve' ? brv.review.approve({ id: task.taskId, files }) : brv.review.reject({ id: task.taskId, files });
      }).finally(() => (deciding.current = false));
      if (!done) return;
      await run('Reading pending reviews…', loadReview);
      if (done.conflicts.length > 0) {
        setMessage({
          tone: 'error',
          text: `Rejected with a conflict: ${done.conflicts.join(', ')} could not be undone cleanly (kept for review); resolve them in review ${done.review?.id ?? '(reviews are disabled: edit the topic)'}.`,
        });
        return void refresh();
      }
      setMessage({
        tone: 'info',
        text: `${decision === 'approve' ? 'Approved' : 'Rejected'} ${whole ? `review ${task.taskId}` : op.path}${done.commit ? ` (${done.commit.slice(0, 8)})` : ''}.`,
      });
      void refresh();
    },
    [screen, run, context, loadReview, refresh],
  );

  /** Resolves the chosen conflict of the topic on screen (`whole`: every conflict of it) by keeping ours, theirs or both. */
  const resolve = useCallback(
    async (side: 'ours' | 'theirs' | 'both', whole: boolean) => {
      const screen = screenNow();
      if (screen.type !== 'review' || !screen.list) return;
      const task = screen.list.tasks[screen.at.task];
      const op = task?.operations[screen.at.op];
      const open = openConflicts(screen.list, screen.at, screen.conflicts);
      if (!task || !op || open.length === 0 || deciding.current) return;
      const section = open[chosenConflict(screen.at, open.length)]!.section;
      deciding.current = true;
      const done = await run('Resolving…', async () =>
        (await context.brv()).review.resolve({ id: task.taskId, topic: op.path, side, ...(whole ? {} : { section }) }, context.actor),
      ).finally(() => (deciding.current = false));
      if (!done) return;
      // Read again: the diff shown is then what approving keeps, not the merge's markers.
      await run('Reading pending reviews…', loadReview);
      setMessage({
        tone: 'info',
        text:
          `Kept ${side} for ${done.resolved.join(', ')} of ${done.path}` +
          (done.remaining.length > 0 ? `; ${done.remaining.length} left.` : '; nothing left to resolve: a approves.'),
      });
      void refresh();
    },
    [run, context, loadReview, refresh],
  );

  // ink re-subscribes the handler after each render: a key that arrives in between must still meet
  // the state that render showed, so the subscribed function calls the latest handler.
  const onKey = useRef<(input: string, key: Key) => void>(() => {});
  useInput((input, key) => onKey.current(input, key), { isActive: !suspended });
  onKey.current = (input: string, key: Key): void => {
    const screen = screenNow();
    // Typed fast or pasted, text with its Tab or Enter arrives as one chunk: each is applied in turn,
    // each after the render of the one before (a Tab moves the focus, an Enter submits what was typed).
    if (input.length > 1 && /[\t\r\n]/.test(input) && !key.ctrl && !key.meta) {
      const parts = input.split(/([\t\r\n])/).filter((part) => part !== '');
      const next = () => {
        const part = parts.shift();
        if (part === undefined) return;
        if (part === '\t') onKey.current('', { ...NO_KEY, tab: true });
        else if (part === '\r' || part === '\n') onKey.current('', { ...NO_KEY, return: true });
        else onKey.current(part, NO_KEY);
        setTimeout(next, 0);
      };
      next();
      return;
    }
    // A y/N question: y does it; any other key (n, Enter, Esc, Ctrl-C) keeps everything as it is.
    const asked = confirmNow.current;
    if (asked) {
      confirmNow.current = undefined;
      if (input === 'y' || input === 'Y') {
        void run(asked.doing, () => asked.proceed()).then(async (outcome) => {
          if (outcome) await apply(outcome);
          void refresh();
        });
      } else setMessage({ tone: 'info', text: asked.declined });
      return;
    }
    // Ctrl-C: stop what runs; otherwise leave on the second press.
    if (key.ctrl && input === 'c') {
      if (busy) {
        runId.current++;
        running.current?.abort();
        setBusy(undefined);
        setMessage({ tone: 'info', text: 'Stopped: its result is dropped (a curate writes nothing).' });
        return;
      }
      if (screen.type === 'home' && lineNow.current.text !== '') {
        setLine(EMPTY_LINE);
        setChoices([]);
        return;
      }
      const now = Date.now();
      if (now - exitArmed.current < EXIT_WINDOW_MS) return leave();
      exitArmed.current = now;
      setMessage({ tone: 'info', text: 'Press Ctrl-C again to leave.' });
      return;
    }
    exitArmed.current = 0;

    if (screen.type === 'home') {
      if (searchNow.current) return searchKey(input, key);
      if (key.ctrl && input === 'd') {
        if (lineNow.current.text === '') return leave();
        setLine((l) => ({ text: l.text.slice(0, l.cursor) + l.text.slice(l.cursor + 1), cursor: l.cursor }));
        return;
      }
      if (key.ctrl && input === 'r') {
        setSearch({ query: '' });
        return;
      }
      if (key.return) return void submit(lineNow.current.text);
      if (key.tab) {
        const result = completeLine(lineNow.current);
        setLine(result.line);
        setChoices(result.choices);
        return;
      }
      if (key.escape) {
        setChoices([]);
        setMessage(undefined);
        history.reset();
        return;
      }
      if (key.upArrow || key.downArrow) {
        const recalled = key.upArrow ? history.older(lineNow.current.text) : history.newer();
        if (recalled !== undefined) setLine((l) => editLine(l, { type: 'set', text: recalled }));
        return;
      }
      const edit = lineEditFor(input, key);
      if (edit) {
        setLine((l) => editLine(l, edit));
        setChoices([]);
      }
      return;
    }

    if (screen.type === 'results') {
      if (key.escape) return back();
      if (key.upArrow) return replaceTop((s) => (s.type === 'results' ? { ...s, selected: Math.max(0, s.selected - 1) } : s));
      if (key.downArrow)
        return replaceTop((s) => (s.type === 'results' ? { ...s, selected: Math.min(s.items.length - 1, s.selected + 1) } : s));
      const page = Math.max(1, Math.floor((mainHeight - 2) / RESULT_ROWS));
      if (key.pageUp) return replaceTop((s) => (s.type === 'results' ? { ...s, selected: Math.max(0, s.selected - page) } : s));
      if (key.pageDown)
        return replaceTop((s) => (s.type === 'results' ? { ...s, selected: Math.min(s.items.length - 1, s.selected + page) } : s));
      if (key.return) {
        const item = screen.items[screen.selected];
        if (!item) return;
        void apply({ type: 'topic', path: item.path, ...(item.source ? { source: item.source } : {}) });
        return;
      }
      // Typing goes back to the prompt, to ask again.
      const edit = lineEditFor(input, key);
      if (edit?.type === 'insert') {
        setScreens([HOME]);
        setLine(editLine(EMPTY_LINE, edit));
      }
      return;
    }

    if (screen.type === 'pager') {
      const lines = pagerLines(screen, width).length;
      const body = Math.max(1, mainHeight - 2);
      const scroll = (to: (offset: number) => number) =>
        replaceTop((s) => (s.type === 'pager' ? { ...s, offset: clampOffset(to(s.offset), lines, body) } : s));
      if (key.escape || input === 'q') return back();
      if (key.upArrow || input === 'k') return scroll((o) => o - 1);
      if (key.downArrow || input === 'j' || key.return) return scroll((o) => o + 1);
      if (key.pageUp || input === 'b') return scroll((o) => o - body);
      if (key.pageDown || input === ' ') return scroll((o) => o + body);
      if (key.home || input === 'g') return scroll(() => 0);
      if (key.end || input === 'G') return scroll(() => lines);
      return;
    }

    if (screen.type === 'curate') {
      if (key.escape) return back();
      if (key.ctrl && input === 's') return void writeCurated();
      const last = FIELDS.length - 1;
      const go = (field: number) =>
        replaceTop((s) => {
          if (s.type !== 'curate') return s;
          const spec = FIELDS[field]!;
          return { ...s, field, cursor: spec.name === 'kind' ? 0 : s.form[spec.name].length };
        });
      if (key.return) return screen.field === last ? void writeCurated() : go(screen.field + 1);
      if (key.tab || key.downArrow) return go(key.shift ? Math.max(0, screen.field - 1) : Math.min(last, screen.field + 1));
      if (key.upArrow) return go(Math.max(0, screen.field - 1));
      const spec = FIELDS[screen.field]!;
      if (spec.name === 'kind') {
        const step = key.leftArrow ? -1 : key.rightArrow || input === ' ' ? 1 : 0;
        if (step !== 0)
          replaceTop((s) =>
            s.type === 'curate' ? { ...s, form: { ...s.form, kind: (s.form.kind + step + KINDS.length) % KINDS.length } } : s,
          );
        return;
      }
      const edit = lineEditFor(input, key);
      if (!edit) return;
      const name: TextField = spec.name;
      replaceTop((s) => {
        if (s.type !== 'curate') return s;
        const edited = editLine({ text: s.form[name], cursor: Math.min(s.cursor, s.form[name].length) }, edit);
        return { ...s, form: { ...s.form, [name]: edited.text }, cursor: edited.cursor };
      });
      return;
    }

    if (screen.type === 'review') {
      if (key.escape) return back();
      const list = screen.list;
      // Keys work while the list is read again; one decision at a time.
      if (!list || deciding.current) return;
      const task = list.tasks[screen.at.task];
      const move = (at: ReviewPosition) => replaceTop((s) => (s.type === 'review' ? { ...s, at } : s));
      const open = openConflicts(list, screen.at, screen.conflicts);
      if (open.length > 0 && input.length === 1) {
        const side = ({ o: 'ours', t: 'theirs', b: 'both' } as const)[input.toLowerCase() as 'o' | 't' | 'b'];
        if (side) return void resolve(side, input !== input.toLowerCase());
        if (input === 'c' || input === 'C') {
          const step = input === 'c' ? 1 : open.length - 1;
          return move({ ...screen.at, section: (chosenConflict(screen.at, open.length) + step) % open.length });
        }
        const op = task?.operations[screen.at.op];
        if (input === 'e' && op) return void apply({ type: 'edit', path: op.path });
      }
      if (input === 'a' || input === 'r') return void decide(input === 'a' ? 'approve' : 'reject', false);
      if (input === 'A' || input === 'R') return void decide(input === 'A' ? 'approve' : 'reject', true);
      if (key.rightArrow || input === 'n')
        return move({ ...screen.at, op: Math.min((task?.operations.length ?? 1) - 1, screen.at.op + 1), offset: 0 });
      if (key.leftArrow || input === 'p') return move({ ...screen.at, op: Math.max(0, screen.at.op - 1), offset: 0 });
      if (key.tab)
        return move({
          task: list.tasks.length === 0 ? 0 : (screen.at.task + (key.shift ? list.tasks.length - 1 : 1)) % list.tasks.length,
          op: 0,
          offset: 0,
        });
      const total = reviewLines(list, screen.at, width, screen.conflicts).length;
      const body = Math.max(1, mainHeight - 2);
      if (key.upArrow) return move({ ...screen.at, offset: clampOffset(screen.at.offset - 1, total, body) });
      if (key.downArrow) return move({ ...screen.at, offset: clampOffset(screen.at.offset + 1, total, body) });
      if (key.pageUp) return move({ ...screen.at, offset: clampOffset(screen.at.offset - body, total, body) });
      if (key.pageDown || input === ' ') return move({ ...screen.at, offset: clampOffset(screen.at.offset + body, total, body) });
    }
  };

  function completeLine(current: Line) {
    return complete(current, COMMANDS, (kind: ArgKind) =>
      kind === 'folder'
        ? values.current.topic
        : kind === 'file'
          ? files.current
          : kind === 'text' || kind === 'agent'
            ? []
            : values.current[kind],
    );
  }

  /** Ctrl-R: typing narrows, Ctrl-R again finds an older match, Enter takes it, Esc gives up. */
  function searchKey(input: string, key: Key): void {
    const search = searchNow.current;
    if (!search) return;
    if (key.escape || (key.ctrl && input === 'g')) return setSearch(undefined);
    if (key.return || key.tab || key.leftArrow || key.rightArrow) {
      if (search.match) setLine(editLine(EMPTY_LINE, { type: 'set', text: search.match.line }));
      setSearch(undefined);
      return;
    }
    if (key.ctrl && input === 'r') {
      const older = search.query ? history.search(search.query, search.match?.index) : undefined;
      if (older) setSearch({ ...search, match: older });
      return;
    }
    const erased = key.backspace || key.delete ? 1 : key.ctrl || key.meta ? 0 : backspacesIn(input);
    if (erased > 0) {
      const query = search.query.slice(0, Math.max(0, search.query.length - erased));
      setSearch({ query, ...(query ? { match: history.search(query) } : {}) });
      return;
    }
    const typed = key.ctrl || key.meta ? '' : cleanInput(input);
    if (typed) {
      const query = search.query + typed;
      setSearch({ query, match: history.search(query) });
    }
  }

  // The prompt: a window of the line around the caret, the real terminal cursor at the caret.
  const promptWidth = Math.max(10, width - widthOf(PROMPT) - 1);
  const promptView = useMemo(() => {
    const before = line.text.slice(0, line.cursor);
    let start = 0;
    while (widthOf(line.text.slice(start, line.cursor)) > promptWidth - 1) start++;
    let shown = line.text.slice(start);
    while (widthOf(shown) > promptWidth) shown = shown.slice(0, -1);
    return { shown, caret: widthOf(before.slice(start)) };
  }, [line, promptWidth]);
  const promptRow = mainHeight + belowLines.length + choiceRows;
  useEffect(() => {
    if (suspended) return;
    if (screen.type === 'curate' && FIELDS[screen.field]!.name !== 'kind' && !busy) {
      const value = screen.form[FIELDS[screen.field]!.name as TextField];
      const caret = Math.min(widthOf(value.slice(0, screen.cursor)), Math.max(0, width - FIELD_LABEL_WIDTH - 1));
      setCursorPosition({ x: FIELD_LABEL_WIDTH + caret, y: 1 + screen.field });
      return;
    }
    if (screen.type === 'home' && !search && !busy) setCursorPosition({ x: widthOf(PROMPT) + promptView.caret, y: promptRow });
    else setCursorPosition(undefined);
  });

  const color = (name: 'red' | 'green' | 'yellow' | 'cyan') => (noColor ? undefined : name);
  let main;
  if (screen.type === 'results') {
    main = (
      <ResultsList
        title={screen.title}
        items={screen.items}
        selected={screen.selected}
        height={mainHeight}
        width={width}
        noColor={noColor}
      />
    );
  } else if (screen.type === 'pager') {
    main = (
      <Pager
        title={screen.title}
        lines={pagerLines(screen, width)}
        offset={screen.offset}
        height={mainHeight}
        width={width}
        noColor={noColor}
      />
    );
  } else if (screen.type === 'curate') {
    main = (
      <CurateScreen
        form={screen.form}
        field={screen.field}
        check={screen.check}
        saving={screen.saving}
        height={mainHeight}
        width={width}
        noColor={noColor}
      />
    );
  } else if (screen.type === 'review') {
    main = (
      <ReviewScreen list={screen.list} at={screen.at} conflicts={screen.conflicts} height={mainHeight} width={width} noColor={noColor} />
    );
  } else {
    main = (
      <Box flexDirection="column" height={mainHeight} justifyContent="flex-end">
        <Text bold>brv</Text>
        <Text wrap="wrap">Ask a question and press Enter, or type / for a command (Tab completes; /help lists commands and keys).</Text>
      </Box>
    );
  }
  const belowColor = busy
    ? color('yellow')
    : message?.tone === 'error'
      ? color('red')
      : notification && !message
        ? color('green')
        : undefined;
  const view = (
    <Box flexDirection="column" width={width}>
      {main}
      {belowLines.map((text, i) => (
        <Text key={i} wrap="truncate" color={belowColor}>
          {text || ' '}
        </Text>
      ))}
      {choiceRows > 0 ? (
        <Box height={choiceRows}>
          <Text wrap="wrap" dimColor>
            {printable(choices.join('  '))}
          </Text>
        </Box>
      ) : null}
      {search ? (
        <Text wrap="truncate">
          (history search) '{search.query}': {search.match ? search.match.line : search.query ? 'no match' : ''}
        </Text>
      ) : screen.type === 'home' ? (
        <Text wrap="truncate">
          <Text color={color('cyan')}>{PROMPT}</Text>
          {promptView.shown}
        </Text>
      ) : (
        <Text dimColor wrap="truncate">
          {'  '}Esc returns to the prompt
        </Text>
      )}
      <Text inverse wrap="truncate">
        {printable(` ${statusText(status)} `).padEnd(width, ' ')}
      </Text>
    </Box>
  );
  // While an editor has the terminal, nothing is drawn: the last frame stands (ink writes only changes).
  if (!suspended) frozen.current = view;
  return suspended && frozen.current ? frozen.current : view;
}
