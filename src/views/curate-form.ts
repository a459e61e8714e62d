// A topic written from a guided template, one field at a time (the TUI's `/curate` without a model, the
// dashboard's New topic form, which the server builds through these). Pure: the fields, and the topic HTML
// they make (every value escaped), which each front end validates as you type.

/** What the knowledge is, as the element that holds it. */
export const KINDS = [
  { label: 'rule (must)', tag: 'bv-rule', attributes: { severity: 'must' } },
  { label: 'rule (should)', tag: 'bv-rule', attributes: { severity: 'should' } },
  { label: 'fact', tag: 'bv-fact', attributes: {} },
  { label: 'decision', tag: 'bv-decision', attributes: {} },
  { label: 'bug', tag: 'bv-bug', attributes: {} },
  { label: 'fix', tag: 'bv-fix', attributes: {} },
  { label: 'structure', tag: 'bv-structure', attributes: {} },
  { label: 'highlights', tag: 'bv-highlights', attributes: {} },
] as const;

export const FIELDS = [
  { name: 'path', label: 'Path', hint: 'folder/topic, e.g. security/auth (Tab completes folders)' },
  { name: 'title', label: 'Title', hint: 'what a person calls it' },
  { name: 'summary', label: 'Summary', hint: 'one line (optional)' },
  { name: 'kind', label: 'Kind', hint: '←/→ to choose' },
  { name: 'text', label: 'Knowledge', hint: 'the rule, fact, decision… itself' },
  { name: 'reason', label: 'Why', hint: 'why it is recorded (optional; kept in the commit)' },
] as const;

export type FieldName = (typeof FIELDS)[number]['name'];
export type TextField = Exclude<FieldName, 'kind'>;

export interface CurateForm {
  path: string;
  title: string;
  summary: string;
  /** Index into KINDS. */
  kind: number;
  text: string;
  reason: string;
}

export const EMPTY_FORM: CurateForm = { path: '', title: '', summary: '', kind: 0, text: '', reason: '' };

function escapeText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

function escapeAttribute(value: string): string {
  return escapeText(value).replace(/"/g, '&quot;');
}

/** The topic the form describes, as curate takes it. */
export function formHtml(form: CurateForm): string {
  const kind = KINDS[form.kind] ?? KINDS[0];
  const topicAttributes = [`path="${escapeAttribute(form.path.trim())}"`, `title="${escapeAttribute(form.title.trim())}"`];
  if (form.summary.trim()) topicAttributes.push(`summary="${escapeAttribute(form.summary.trim())}"`);
  const elementAttributes = Object.entries(kind.attributes).map(([name, value]) => ` ${name}="${escapeAttribute(value)}"`);
  return `<bv-topic ${topicAttributes.join(' ')}>\n  <${kind.tag}${elementAttributes.join('')}>${escapeText(form.text.trim())}</${kind.tag}>\n</bv-topic>`;
}

/** What the form still lacks before it is worth checking (the validator takes an empty element). */
export function formGap(form: CurateForm): string | undefined {
  if (form.path.trim() === '') return 'Give the topic a path, e.g. security/auth.';
  if (form.title.trim() === '') return 'Give the topic a title.';
  if (form.text.trim() === '') return 'Write the knowledge itself (the Knowledge field).';
  return undefined;
}

/** The meta curate records with it (the reason, when given). */
export function formMeta(form: CurateForm): { reason: string } | undefined {
  return form.reason.trim() ? { reason: form.reason.trim() } : undefined;
}
