// The one command table: every command, sub-command, positional and option brv's CLI takes, with
// what each value names (a topic path, a branch…). Shell completion (`brv __complete`, src/cli/complete.ts)
// and the TUI's slash commands read it; test/cli/command-table.test.ts checks that the yargs builders
// declare exactly these. Plain data (one type import): the fast path may load it.

import type { ValueKind } from '../service/completion.js';

export interface ArgDecl {
  name: string;
  values?: ValueKind;
  choices?: readonly string[];
}

export interface OptionDecl {
  /** 'boolean': a flag, no value follows; otherwise (or unset) the option takes a value. */
  type?: 'string' | 'number' | 'boolean';
  choices?: readonly string[];
  alias?: string | readonly string[];
  values?: ValueKind;
}

export interface CommandDecl {
  name: string;
  positionals?: readonly ArgDecl[];
  options?: Readonly<Record<string, OptionDecl>>;
  subcommands?: readonly CommandDecl[];
}

/** Options every command takes (their full declaration: options.ts GLOBAL_OPTIONS). */
export const GLOBAL_OPTION_DECLS: Readonly<Record<string, OptionDecl>> = {
  format: { choices: ['text', 'json'] },
  C: { type: 'string' },
};

/** Every top-level command, in the order `--help` lists them. */
export const COMMAND_TABLE: readonly CommandDecl[] = [
  { name: 'init', options: { track: { type: 'string' }, layout: { choices: ['refs', 'branches'] } } },
  { name: 'status' },
  {
    name: 'curate',
    positionals: [{ name: 'intent' }],
    options: {
      session: { type: 'string' },
      response: { type: 'string' },
      'response-file': { type: 'string' },
      'delete-response-file': { type: 'boolean' },
      overwrite: { type: 'boolean' },
      'html-file': { type: 'string' },
      meta: { type: 'string' },
      folder: { alias: 'd', values: 'folder' },
      file: { type: 'string', alias: 'f' },
      auto: { type: 'boolean' },
      files: { type: 'string' },
      detach: {},
      timeout: {},
    },
    subcommands: [{ name: 'view', options: { limit: { type: 'number' } } }],
  },
  {
    name: 'query',
    positionals: [{ name: 'question' }],
    options: {
      limit: { type: 'number' },
      scope: { type: 'string', values: 'folder' },
      kind: { type: 'string', values: 'kind' },
      since: { type: 'string' },
      until: { type: 'string' },
      at: { type: 'string' },
      lexical: { type: 'boolean' },
      hybrid: { type: 'boolean' },
      answer: { type: 'boolean' },
    },
  },
  {
    name: 'search',
    positionals: [{ name: 'question' }],
    options: {
      limit: { type: 'number' },
      scope: { type: 'string', values: 'folder' },
      kind: { type: 'string', values: 'kind' },
      since: { type: 'string' },
      until: { type: 'string' },
      at: { type: 'string' },
      lexical: { type: 'boolean' },
      hybrid: { type: 'boolean' },
    },
  },
  { name: 'read', positionals: [{ name: 'path', values: 'topic-path' }], options: { raw: { type: 'boolean' }, at: { type: 'string' } } },
  { name: 'ls', positionals: [{ name: 'prefix', values: 'folder' }], options: { at: { type: 'string' } } },
  {
    name: 'rm',
    positionals: [{ name: 'path', values: 'topic-path' }],
    options: { recursive: { type: 'boolean', alias: 'r' }, reason: { type: 'string' } },
  },
  {
    name: 'import',
    positionals: [{ name: 'dir' }],
    options: { overwrite: { type: 'boolean' }, 'skip-invalid': { type: 'boolean' }, 'dry-run': { type: 'boolean' } },
  },
  { name: 'export', positionals: [{ name: 'dir' }], options: { force: { type: 'boolean' }, at: { type: 'string' } } },
  {
    name: 'vc',
    subcommands: [
      { name: 'status' },
      {
        name: 'log',
        positionals: [{ name: 'path', values: 'topic-path' }],
        options: { limit: { type: 'number', alias: 'n' }, all: { type: 'boolean' } },
      },
      {
        name: 'diff',
        positionals: [{ name: 'range' }],
        options: { stat: { type: 'boolean' }, path: { type: 'string', values: 'topic-path' } },
      },
      { name: 'show', positionals: [{ name: 'spec' }], options: { stat: { type: 'boolean' } } },
      {
        name: 'branch',
        positionals: [{ name: 'name', values: 'branch' }],
        options: {
          delete: { type: 'string', alias: 'd', values: 'branch' },
          force: { type: 'boolean' },
          all: { type: 'boolean', alias: 'a' },
        },
      },
      { name: 'checkout', positionals: [{ name: 'branch', values: 'branch' }], options: { b: { type: 'boolean' } } },
      { name: 'merge', positionals: [{ name: 'branch', values: 'branch' }] },
      {
        name: 'remote',
        positionals: [
          { name: 'action', choices: ['add', 'set-url', 'set-layout', 'remove'] },
          { name: 'name', values: 'remote' },
          { name: 'url' },
        ],
        options: { layout: { choices: ['refs', 'branches'] } },
      },
      { name: 'fetch', positionals: [{ name: 'remote', values: 'remote' }] },
      { name: 'pull', positionals: [{ name: 'remote', values: 'remote' }] },
      { name: 'push', positionals: [{ name: 'remote', values: 'remote' }], options: { u: { type: 'boolean', alias: 'set-upstream' } } },
      { name: 'clone', positionals: [{ name: 'url' }, { name: 'dir' }], options: { layout: { choices: ['refs', 'branches'] } } },
      { name: 'config', positionals: [{ name: 'key', choices: ['user.name', 'user.email'] }, { name: 'value' }] },
    ],
  },
  { name: 'sync', positionals: [{ name: 'remote', values: 'remote' }] },
  {
    name: 'review',
    options: { enable: { type: 'boolean' }, disable: { type: 'boolean' } },
    subcommands: [
      { name: 'pending' },
      { name: 'show', positionals: [{ name: 'id', values: 'review-id' }] },
      {
        name: 'resolve',
        positionals: [
          { name: 'id', values: 'review-id' },
          { name: 'topic', values: 'topic-path' },
        ],
        options: {
          section: { type: 'string' },
          ours: { type: 'boolean' },
          theirs: { type: 'boolean' },
          both: { type: 'boolean' },
          edit: { type: 'boolean' },
        },
      },
      {
        name: 'approve',
        positionals: [{ name: 'id', values: 'review-id' }],
        options: { file: { type: 'string' }, 'keep-both': { type: 'boolean' } },
      },
      {
        name: 'reject',
        positionals: [{ name: 'id', values: 'review-id' }],
        options: { file: { type: 'string' }, 'keep-both': { type: 'boolean' } },
      },
    ],
  },
  {
    name: 'hooks',
    subcommands: [
      { name: 'install', positionals: [{ name: 'hooks', choices: ['post-merge', 'post-checkout', 'pre-commit'] }] },
      { name: 'uninstall', positionals: [{ name: 'hooks', choices: ['post-merge', 'post-checkout', 'pre-commit'] }] },
      { name: 'status' },
      {
        name: 'run',
        positionals: [{ name: 'hook', choices: ['post-merge', 'post-checkout', 'pre-commit'] }, { name: 'args' }],
        options: { 'cache-only': { type: 'boolean' } },
      },
    ],
  },
  {
    name: 'connectors',
    subcommands: [
      { name: 'list' },
      {
        name: 'install',
        positionals: [{ name: 'agent', values: 'agent' }],
        options: { global: { type: 'boolean' }, type: { choices: ['rules', 'mcp', 'skill', 'hook', 'agent'] } },
      },
      {
        name: 'uninstall',
        positionals: [{ name: 'agent', values: 'agent' }],
        options: { global: { type: 'boolean' }, type: { choices: ['rules', 'mcp', 'skill', 'hook', 'agent'] } },
      },
      { name: 'status', positionals: [{ name: 'agent', values: 'agent' }], options: { global: { type: 'boolean' } } },
    ],
  },
  {
    name: 'worktree',
    subcommands: [
      {
        name: 'add',
        positionals: [{ name: 'path', values: 'topic-path' }, { name: 'commitish' }],
        options: { b: { type: 'string' }, 'brv-branch': { type: 'string' }, 'create-brv-branch': { type: 'boolean' } },
      },
      { name: 'remove', positionals: [{ name: 'path', values: 'topic-path' }], options: { force: { type: 'boolean' } } },
      { name: 'list' },
    ],
  },
  {
    name: 'source',
    subcommands: [
      {
        name: 'add',
        positionals: [{ name: 'location' }],
        options: { alias: { type: 'string' }, branch: { type: 'string', values: 'branch' } },
      },
      { name: 'list' },
      { name: 'remove', positionals: [{ name: 'source', values: 'source' }] },
      { name: 'refresh' },
    ],
  },
  {
    name: 'settings',
    options: { global: { type: 'boolean' } },
    subcommands: [
      { name: 'list' },
      { name: 'get', positionals: [{ name: 'key', values: 'setting-key' }] },
      { name: 'set', positionals: [{ name: 'key', values: 'setting-key' }, { name: 'value' }] },
      { name: 'reset', positionals: [{ name: 'key', values: 'setting-key' }] },
    ],
  },
  { name: 'hook-prompt-submit' },
  { name: 'mcp' },
  { name: 'doctor' },
  { name: 'edit', positionals: [{ name: 'path', values: 'topic-path' }] },
  { name: 'completion', positionals: [{ name: 'shell', choices: ['bash', 'zsh', 'fish'] }] },
  { name: 'maintenance', options: { 'lock-token': { type: 'string' } } },
  { name: 'webui', options: { port: { type: 'number' }, open: { type: 'boolean' } } },
  { name: 'tui' },
  {
    name: 'dream',
    options: {
      scope: { type: 'string', values: 'folder' },
      kinds: { type: 'string' },
      max: { type: 'number' },
      'dry-run': { type: 'boolean' },
    },
  },
  {
    name: 'providers',
    subcommands: [
      { name: 'list' },
      {
        name: 'connect',
        positionals: [{ name: 'provider' }],
        options: {
          model: { type: 'string' },
          'base-url': { type: 'string' },
          'api-key': { type: 'string' },
          'key-storage': { choices: ['auto', 'file', 'credential-helper'] },
          'embedding-model': { type: 'string' },
          use: { type: 'boolean' },
        },
      },
      { name: 'switch', positionals: [{ name: 'provider' }] },
      { name: 'disconnect', positionals: [{ name: 'provider' }] },
      { name: 'check', positionals: [{ name: 'provider' }] },
    ],
  },
  {
    name: 'model',
    options: { provider: { type: 'string' } },
    subcommands: [
      { name: 'list', options: { provider: { type: 'string' } } },
      { name: 'switch', positionals: [{ name: 'model' }], options: { provider: { type: 'string' }, embedding: { type: 'boolean' } } },
    ],
  },
];

/** Topic paths offered one folder at a time: `sec` → `security/`, `security/` → its topics and folders. */
export function pathCandidates(paths: readonly string[], typed: string, foldersOnly = false): string[] {
  const found = new Set<string>();
  for (const path of paths) {
    if (!path.startsWith(typed)) continue;
    const slash = path.indexOf('/', typed.length);
    if (slash >= 0) found.add(path.slice(0, slash + 1));
    else if (!foldersOnly) found.add(path);
  }
  return [...found].sort();
}
