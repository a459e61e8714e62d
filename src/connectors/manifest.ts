import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { ConnectorType, Scope } from './agents.js';
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

export async function loadManifest(file: string): Promise<Manifest> {
  try {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as Partial<Manifest>;
    if (parsed.version === 1 && Array.isArray(parsed.installs)) return { version: 1, installs: parsed.installs };
  } catch {
    // absent or unreadable: start afresh
  }
  return { version: 1, installs: [] };
}

export async function saveManifest(file: string, manifest: Manifest): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const temporary = `${file}.${process.pid}-${randomBytes(4).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, `${JSON.stringify(manifest, null, 2)}\n`);
    await rename(temporary, file);
  } catch (error) {
    await unlink(temporary).catch(() => {});
    throw error;
  }
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
