// What the REPL shows above its prompt: a pager (a topic, a command's output, help), the results of
// a question, the review of pending changes. Pure components: the App owns the state.
import { Box, Text } from 'ink';
import type { ResultItem } from './commands.js';
import { printable } from '../topic/printable.js';
import { plainLine, widthOf, wrapPlainText, type Span, type StyledLine } from './terminal-markdown.js';
import type { CheckHtmlResult } from '../service/knowledge.js';
import type { ReviewListWithDiffs, ReviewShow } from '../service/review.js';
import { provenanceText } from '../views/review.js';
import { FIELDS, formGap, formHtml, KINDS, type CurateForm } from '../views/curate-form.js';

/** Cuts a line to `width` columns. */
function clipLine(line: StyledLine, width: number): StyledLine {
  const out: Span[] = [];
  let used = 0;
  for (const span of line) {
    const size = widthOf(span.text);
    if (used + size <= width) {
      out.push(span);
      used += size;
      continue;
    }
    let text = '';
    for (const char of span.text) {
      if (used + widthOf(text + char) > width) break;
      text += char;
    }
    if (text) out.push({ ...span, text });
    break;
  }
  return out;
}

function SpanText({ span, noColor }: { span: Span; noColor: boolean }) {
  const s = span.style ?? {};
  return (
    <Text
      bold={s.bold}
      italic={s.italic}
      underline={s.underline}
      strikethrough={s.strike}
      dimColor={s.dim}
      color={noColor ? undefined : s.color}
    >
      {printable(span.text)}
    </Text>
  );
}

function LineView({ line, width, noColor }: { line: StyledLine; width: number; noColor: boolean }) {
  const clipped = clipLine(line, width);
  return (
    <Text wrap="truncate">{clipped.length === 0 ? ' ' : clipped.map((span, i) => <SpanText key={i} span={span} noColor={noColor} />)}</Text>
  );
}

/** The first line shown so that `offset` stays within the lines. */
export function clampOffset(offset: number, total: number, height: number): number {
  return Math.max(0, Math.min(offset, Math.max(0, total - height)));
}

export function Pager(props: {
  title: string;
  lines: readonly StyledLine[];
  offset: number;
  height: number;
  width: number;
  noColor: boolean;
}) {
  const { title, lines, height, width, noColor } = props;
  const body = Math.max(1, height - 2);
  const offset = clampOffset(props.offset, lines.length, body);
  const shown = lines.slice(offset, offset + body);
  const end = Math.min(lines.length, offset + body);
  const position =
    lines.length <= body ? `${lines.length} line${lines.length === 1 ? '' : 's'}` : `${offset + 1}–${end} of ${lines.length}`;
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {printable(title)}
      </Text>
      <Box flexDirection="column" height={body}>
        {shown.map((line, i) => (
          <LineView key={offset + i} line={line} width={width} noColor={noColor} />
        ))}
      </Box>
      <Text dimColor wrap="truncate">
        {position} · ↑↓ PgUp PgDn Space · Home End · Esc back
      </Text>
    </Box>
  );
}

/** Lines each result takes in the list. */
export const RESULT_ROWS = 3;

export function ResultsList(props: {
  title: string;
  items: readonly ResultItem[];
  selected: number;
  height: number;
  width: number;
  noColor: boolean;
}) {
  const { title, items, selected, height, width, noColor } = props;
  const fit = Math.max(1, Math.floor((height - 2) / RESULT_ROWS));
  const first = Math.max(0, Math.min(selected - Math.floor(fit / 2), items.length - fit));
  const visible = items.slice(first, first + fit);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        {printable(title)}
      </Text>
      <Box flexDirection="column" height={height - 2}>
        {items.length === 0 ? <Text>No topics match. Try other words, or /ls to see what there is.</Text> : null}
        {visible.map((item, i) => {
          const index = first + i;
          const chosen = index === selected;
          const where = printable(item.source ? `${item.source}: ${item.path} (read-only source)` : item.path);
          const title = printable(item.title || item.path);
          return (
            <Box key={`${item.source ?? ''}:${item.path}`} flexDirection="column">
              <Text wrap="truncate" bold={chosen} inverse={chosen}>
                {chosen ? '›' : ' '} {index + 1}. {title} <Text dimColor={!chosen}>[{Math.round(item.score * 100)}%]</Text>
              </Text>
              <Text wrap="truncate" color={noColor ? undefined : 'cyan'}>
                {'    '}
                {where}
              </Text>
              <Text wrap="truncate" dimColor>
                {'    '}
                {printable(plainLine(clipLine([{ text: item.excerpt.replace(/\s+/g, ' ') }], Math.max(10, width - 4))))}
              </Text>
            </Box>
          );
        })}
      </Box>
      <Text dimColor wrap="truncate">
        {items.length > 0 ? `${selected + 1} of ${items.length} · ↑↓ choose · Enter open · type to ask again · Esc back` : 'Esc back'}
      </Text>
    </Box>
  );
}

export interface ReviewPosition {
  task: number;
  op: number;
  offset: number;
  /** The conflict chosen among the topic's (o / t / b resolve it). */
  section?: number;
}

type Conflict = ReviewShow['topics'][number]['conflicts'][number];

/** A merge review's conflicts still marked, per review id, then per topic path (brv.review.conflicts). */
export type ReviewConflicts = ReadonlyMap<string, ReadonlyMap<string, readonly Conflict[]>>;

/** The conflicts of the operation at `at` still to resolve (none for any other review). */
export function openConflicts(list: ReviewListWithDiffs, at: ReviewPosition, conflicts: ReviewConflicts | undefined): readonly Conflict[] {
  const task = list.tasks[at.task];
  const op = task?.operations[at.op];
  return (task && op && conflicts?.get(task.taskId)?.get(op.path)) || [];
}

/** The index of the chosen conflict among `count`. */
export function chosenConflict(at: ReviewPosition, count: number): number {
  return Math.min(Math.max(0, at.section ?? 0), Math.max(0, count - 1));
}

/** The lines of one operation of a pending review: who made it, what it is, why, and its diff (or its conflicts). */
export function reviewLines(list: ReviewListWithDiffs, at: ReviewPosition, width: number, conflicts?: ReviewConflicts): StyledLine[] {
  const task = list.tasks[at.task];
  if (!task) return [[{ text: 'Nothing to review: every change is decided.' }]];
  const op = task.operations[at.op];
  const lines: StyledLine[] = [
    [
      { text: `Review ${task.taskId}`, style: { bold: true } },
      {
        text: ` (${at.task + 1} of ${list.tasks.length}) · ${task.time}${task.gated ? ' · held: not on the branch until approved' : ''}`,
        style: { dim: true },
      },
    ],
    ...wrapPlainText(task.subject, width),
  ];
  const who = provenanceText(task);
  if (who) lines.push(...wrapPlainText(who, width).map((line) => line.map((span) => ({ ...span, style: { dim: true } }))));
  lines.push([]);
  if (!op) return [...lines, [{ text: 'This review names no topic.' }]];
  lines.push([
    { text: `${op.type} `, style: { bold: true, color: 'yellow' } },
    { text: op.path, style: { color: 'cyan' } },
    { text: `${op.impact ? ` · impact ${op.impact}` : ''} · topic ${at.op + 1} of ${task.operations.length}`, style: { dim: true } },
  ]);
  if (op.reason) lines.push(...wrapPlainText(`Why: ${op.reason}`, width));
  lines.push([]);
  const open = openConflicts(list, at, conflicts);
  if (open.length > 0) {
    // Both versions are kept, marked, until someone picks: the conflicts instead of a diff of the markers.
    lines.push([
      {
        text: `${open.length} merge ${open.length === 1 ? 'conflict' : 'conflicts'} to resolve before approving:`,
        style: { bold: true, color: 'yellow' },
      },
    ]);
    const chosen = chosenConflict(at, open.length);
    open.forEach((conflict, i) => {
      lines.push([
        { text: `${i === chosen ? '› ' : '  '}${conflict.section}`, style: { bold: i === chosen, color: 'cyan' } },
        { text: ` ${conflict.reason}`, style: { dim: true } },
      ]);
      for (const [label, side, color] of [
        ['ours', conflict.ours, 'magenta'],
        ['theirs', conflict.theirs, 'green'],
      ] as const) {
        if (side === undefined) continue;
        lines.push([{ text: `    ${label}:`, style: { dim: true } }]);
        for (const wrapped of wrapPlainText(side.trim(), Math.max(10, width - 6)))
          lines.push([{ text: '      ' }, ...wrapped.map((span) => ({ ...span, style: { color } }))]);
      }
    });
    return lines;
  }
  if (op.landing === 'unchanged') {
    lines.push(...wrapPlainText('No change: the topic is as it was before the merge (the conflicts were resolved with ours).', width));
  } else if (op.diff) {
    for (const diffLine of op.diff.split('\n')) {
      const color = diffLine.startsWith('+') ? 'green' : diffLine.startsWith('-') ? 'magenta' : undefined;
      for (const wrapped of wrapPlainText(diffLine, width))
        lines.push(wrapped.map((span) => ({ ...span, style: color ? { color } : { dim: true } })));
    }
  } else {
    const summary = [op.previousSummary && `- ${op.previousSummary}`, op.summary && `+ ${op.summary}`].filter(Boolean).join('\n');
    lines.push(...wrapPlainText(summary || (op.type === 'DELETE' ? 'The topic is removed.' : 'No diff to show.'), width));
    if (op.problem) lines.push(...wrapPlainText(`Not shown (${op.problem.kind}): ${op.problem.message}`, width));
  }
  return lines;
}

export function ReviewScreen(props: {
  list: ReviewListWithDiffs | undefined;
  at: ReviewPosition;
  conflicts?: ReviewConflicts | undefined;
  height: number;
  width: number;
  noColor: boolean;
}) {
  const { list, at, conflicts, height, width, noColor } = props;
  if (!list)
    return (
      <Pager title="Review" lines={[[{ text: 'Reading pending reviews…' }]]} offset={0} height={height} width={width} noColor={noColor} />
    );
  const lines = reviewLines(list, at, width, conflicts);
  const conflicted = openConflicts(list, at, conflicts).length > 0;
  const body = Math.max(1, height - 2);
  const offset = clampOffset(at.offset, lines.length, body);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        Review · {list.tasks.length} pending
      </Text>
      <Box flexDirection="column" height={body}>
        {lines.slice(offset, offset + body).map((line, i) => (
          <LineView key={offset + i} line={line} width={width} noColor={noColor} />
        ))}
      </Box>
      <Text dimColor wrap="truncate">
        {list.tasks.length === 0
          ? 'Esc back'
          : conflicted
            ? 'o ours · t theirs · b both (this conflict; O T B every one) · c next conflict · e edit · r reject · ←→ topic · Tab next review · Esc back'
            : 'a approve · r reject this topic · A/R the whole review · ←→ topic · Tab next review · ↑↓ scroll · Esc back'}
      </Text>
    </Box>
  );
}

/** Columns before a field's value: two for the focus mark, the label padded, then "› ". */
export const FIELD_LABEL_WIDTH = 14;

export function CurateScreen(props: {
  form: CurateForm;
  field: number;
  check: CheckHtmlResult | undefined;
  saving: boolean;
  height: number;
  width: number;
  noColor: boolean;
}) {
  const { form, field, check, saving, height, width, noColor } = props;
  const valueWidth = Math.max(10, width - FIELD_LABEL_WIDTH);
  const focused = FIELDS[field]!;
  const html = formHtml(form);
  const gap = formGap(form);
  const status: StyledLine[] = gap
    ? [[{ text: gap, style: { color: 'yellow' } }]]
    : !check
      ? [[{ text: 'Checking…', style: { dim: true } }]]
      : check.ok
        ? [
            [{ text: `✓ valid: Ctrl-S writes ${check.topicPath}`, style: { color: 'green', bold: true } }],
            ...check.warnings.map((w) => [{ text: `⚠ ${w}` }]),
          ]
        : check.errors.flatMap((e) =>
            wrapPlainText(`✗ ${e.line !== undefined ? `line ${e.line}:${e.column ?? 1} ` : ''}${e.kind}: ${e.message}`, width).map((line) =>
              line.map((span) => ({ ...span, style: { color: 'magenta' as const } })),
            ),
          );
  const preview = wrapPlainText(html, width).map((line) => line.map((span) => ({ ...span, style: { dim: true } })));
  const room = Math.max(0, height - 2 - FIELDS.length - 1);
  const below = [...status, [], ...preview].slice(0, room);
  return (
    <Box flexDirection="column" height={height}>
      <Text bold wrap="truncate">
        Curate a topic {saving ? '· writing…' : ''}
      </Text>
      {FIELDS.map((spec, i) => {
        const value =
          spec.name === 'kind' ? `‹ ${KINDS[form.kind]?.label ?? ''} ›` : form[spec.name] || (i === field ? '' : `(${spec.hint})`);
        const empty = spec.name !== 'kind' && form[spec.name] === '';
        return (
          <Text key={spec.name} wrap="truncate" bold={i === field}>
            {i === field ? '› ' : '  '}
            {spec.label.padEnd(FIELD_LABEL_WIDTH - 4)}
            {'  '}
            <Text dimColor={empty} color={noColor || i !== field ? undefined : 'cyan'}>
              {plainLine(clipLine([{ text: value }], valueWidth))}
            </Text>
          </Text>
        );
      })}
      <Text> </Text>
      <Box flexDirection="column" height={room}>
        {below.map((line, i) => (
          <LineView key={i} line={line} width={width} noColor={noColor} />
        ))}
      </Box>
      <Text dimColor wrap="truncate">
        {focused.hint} · Tab/↑↓ fields · Ctrl-S write · Esc cancel
      </Text>
    </Box>
  );
}
