import { readLocalFile, writeLocalFile } from '../../store/local-file.js';
import { CONNECTOR_TYPES, type ConnectorType, type Scope } from './agents.js';
import type { TextEdit } from './text.js';

// What each install wrote, so uninstall removes exactly that: files brv created (deleted again),
// the edit that gives back a file's previous bytes (used while the file still has the content brv
// wrote), keys brv created, directories brv made. Local state, never committed: project installs
// under <git-common-dir>/brv/connectors.json, --global ones under ~/.config/brv/connectors.json.
// A missing or unreadable manifest only makes uninstall fall back to removing brv's part by structure.

export interface FileRecord {
  path: string;
  /** The file did not exist before brv wrote it. */
  created: boolean;
  /** sha256 of the content brv wrote. */
  sha256: string;
  /** Applied to that content, gives back the file as it was before install. */
  undo?: TextEdit;
  /** The outermost configuration key brv created (pruned on uninstall when left empty). */
  createdKey?: string[];
  /** What brv's part took the place of at install (ByteRover's rules block), which uninstall does not restore. */
  replaced?: string;
  /** What brv put in the file (`mcpServers.brv`, `rules block`, …): two installs sharing it keep it until the last goes. */
  target: string;
}

export interface InstallRecord {
  agent: string;
  type: ConnectorType;
  scope: Scope;
  root: string;
  files: FileRecord[];
  /** Directories the install created, for uninstall to remove when they are empty again. */
  dirs: string[];
}

export interface Manifest {
  version: 1;
  installs: InstallRecord[];
}

/** Far more than any number of installs needs; a bigger file is not one brv wrote. */
const MAX_MANIFEST_BYTES = 16 * 1024 * 1024;

const isString = (value: unknown): value is string => typeof value === 'string';
const isCount = (value: unknown): value is number => Number.isSafeInteger(value) && (value as number) >= 0;

function isTextEdit(value: unknown): boolean {
  const edit = value as TextEdit;
  return typeof edit === 'object' && edit !== null && isCount(edit.offset) && isCount(edit.length) && isString(edit.text);
}

function isFileRecord(value: unknown): value is FileRecord {
  const file = value as FileRecord;
  return (
    typeof file === 'object' &&
    file !== null &&
    isString(file.path) &&
    typeof file.created === 'boolean' &&
    isString(file.sha256) &&
    isString(file.target) &&
    (file.undo === undefined || isTextEdit(file.undo)) &&
    (file.replaced === undefined || isString(file.replaced)) &&
    (file.createdKey === undefined || (Array.isArray(file.createdKey) && file.createdKey.every(isString)))
  );
}

function isInstallRecord(value: unknown): value is InstallRecord {
  const record = value as InstallRecord;
  return (
    typeof record === 'object' &&
    record !== null &&
    isString(record.agent) &&
    (CONNECTOR_TYPES as readonly string[]).includes(record.type) &&
    (record.scope === 'project' || record.scope === 'global') &&
    isString(record.root) &&
    Array.isArray(record.files) &&
    record.files.every(isFileRecord) &&
    Array.isArray(record.dirs) &&
    record.dirs.every(isString)
  );
}

/**
 * The manifest; an empty one when it is absent or unreadable (not a regular file, not JSON, not a
 * manifest). Records of the wrong shape are dropped one by one: uninstall handles what they
 * described by structure, as if it had no record.
 */
export async function loadManifest(file: string): Promise<Manifest> {
  try {
    const bytes = await readLocalFile(file, MAX_MANIFEST_BYTES);
    const parsed = bytes && (JSON.parse(bytes.toString('utf8')) as Partial<Manifest> | null);
    if (parsed && parsed.version === 1 && Array.isArray(parsed.installs))
      return { version: 1, installs: parsed.installs.filter(isInstallRecord) };
  } catch {
    // absent or unreadable: start afresh
  }
  return { version: 1, installs: [] };
}

export async function saveManifest(file: string, manifest: Manifest): Promise<void> {
  await writeLocalFile(file, `${JSON.stringify(manifest, null, 2)}\n`);
}

export function sameInstall(
  a: Pick<InstallRecord, 'agent' | 'type' | 'scope' | 'root'>,
  b: Pick<InstallRecord, 'agent' | 'type' | 'scope' | 'root'>,
) {
  return a.agent === b.agent && a.type === b.type && a.scope === b.scope && a.root === b.root;
}

export function findInstall(manifest: Manifest, key: Pick<InstallRecord, 'agent' | 'type' | 'scope' | 'root'>): InstallRecord | undefined {
  return manifest.installs.find((record) => sameInstall(record, key));
}

/** Records of other installs that put the same thing in the same file. */
export function otherOwners(
  manifest: Manifest,
  self: Pick<InstallRecord, 'agent' | 'type' | 'scope' | 'root'>,
  file: string,
  target: string,
) {
  return manifest.installs.filter(
    (record) => !sameInstall(record, self) && record.files.some((entry) => entry.path === file && entry.target === target),
  );
}
