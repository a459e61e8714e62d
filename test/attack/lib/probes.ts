/**
 * Campaign 3, path/ref/URL injection: hostile topic paths, branch names, remote names, source
 * aliases, URLs, export targets and connector targets go through the real CLI in a sandbox
 * directory. After each probe: the sentinel command never ran, nothing appeared, vanished or changed
 * in the sandbox outside the places the probe may write, code refs (refs/heads, refs/tags, HEAD)
 * are untouched, and a refused probe left the knowledge refs (refs/brv/*) as they were. Shared by
 * test/attack/probes.test.ts (a sample) and bench/attack/probes.ts (every combination).
 */
import { execa } from 'execa';
import { existsSync } from 'node:fs';
import { lstat, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { ENV, brvJson, cleanup, git, tempDir } from '../../helpers/repo.js';
import { runCli, topicHtml } from './processes.js';

export interface Probe {
  surface: string;
  /** The hostile value, for the report. */
  payload: string;
  /** Runs the probe; `s` is the sandbox. Returns the runs' exit codes (the last one decides "refused"). */
  run(s: Sandbox, n: number): Promise<number | null>;
  /** Paths (relative to the sandbox) this probe may write under, besides the repository's .git. */
  allowed?: (n: number) => string[];
  /** The probe must fail (exit ≠ 0); otherwise only "nothing escaped, nothing ran" is asserted. */
  mustRefuse: boolean;
  /** A failure issue 9 lists that another change fixes: reported apart, left out of the test. */
  known?: string;
  /** Further checks of what the probe left, as problems. */
  verify?(s: Sandbox, n: number): Promise<string[]>;
}

export interface Sandbox {
  root: string;
  repo: string;
  /** A brv repository to add as a knowledge source. */
  other: string;
  bare: string;
  sentinel: string;
  /** A repository whose brv tree was planted with hostile entries (for export). */
  planted: string;
  /** Folder of the ssh stub, outside the sandbox. */
  stubDir: string;
}

export interface ProbeResult {
  surface: string;
  payload: string;
  known?: string;
  /** The CLI printed a Node stack trace instead of an error envelope. */
  stackTrace: boolean;
  exitCode: number | null;
  problems: string[];
}

const SENTINEL = '@SENTINEL@';
const NUL_FREE = (value: string) => !value.includes('\u0000');

/** Topic paths: traversal, absolute, backslashes, controls, very long, unicode look-alikes, git internals. */
export const HOSTILE_PATHS = [
  '../escape',
  '../../escape',
  '../../../../../../escape',
  '@ROOT@/escape-abs',
  '/etc/passwd',
  'a\\..\\..\\escape',
  'a/../../escape',
  'a/../../../escape/x',
  '..',
  '.',
  '.git/config',
  '.git/hooks/pre-commit',
  'a/.git/x',
  '.brv/format',
  'a\u001b[31mb/c',
  'a/b\nc',
  'a/\tb',
  'a/b\u007f',
  'a/b\u0000c',
  `a/${'x'.repeat(5000)}`,
  `${'a/'.repeat(400)}b`,
  'a/\u202eb',
  '\uff0e\uff0e/escape',
  'a\u2215..\u2215escape',
  '\u2024\u2024/escape',
  'a/%2e%2e/escape',
  '-rf',
  `--upload-pack=touch ${SENTINEL}`,
  '~/escape',
  `$(touch ${SENTINEL})`,
];

/** Branch, remote and alias names: option-like, ref syntax, shell syntax, controls, look-alikes. */
export const HOSTILE_NAMES = [
  '../x',
  '-x',
  `--upload-pack=touch ${SENTINEL}`,
  '--help',
  'a..b',
  'x.lock',
  'a/.b',
  '.hidden',
  '@{-1}',
  '@',
  'HEAD',
  'refs/heads/main',
  '/abs',
  'main/',
  'a b',
  'a\u001bb',
  'a\nb',
  'a~1',
  'a^',
  'a:b',
  '*',
  'a?',
  '[a',
  'a\\b',
  'x'.repeat(300),
  'a\u202eb',
  `$(touch ${SENTINEL})`,
  `\`touch ${SENTINEL}\``,
  `;touch ${SENTINEL}`,
  '..',
];

/** URLs and locations: transport helpers, option injection, ssh ProxyCommand, shell syntax. */
export const HOSTILE_URLS = [
  `ext::sh -c touch% ${SENTINEL}`,
  `ext::sh -c "touch ${SENTINEL}"`,
  'fd::0',
  'fd::7,8',
  `--upload-pack=touch ${SENTINEL}`,
  `--config=core.sshCommand=touch ${SENTINEL}`,
  '-u',
  '-x',
  `ssh://-oProxyCommand=touch%20${SENTINEL}/x`,
  `-oProxyCommand=touch ${SENTINEL}:x`,
  `ssh://host/$(touch ${SENTINEL})`,
  'file://@ROOT@/nonexistent',
  '@ROOT@/../escape-url',
  `$(touch ${SENTINEL})`,
  `\`touch ${SENTINEL}\``,
  'http://127.0.0.1:1/x',
  'a\u0001b',
];

/** Values that look hostile but are ordinary names: brv may accept them, as long as nothing escapes. */
const ORDINARY = new Set(['-rf', '--help', 'HEAD', 'refs/heads/main']);
const refuse = (payload: string) => !ORDINARY.has(payload);

const fill = (value: string, s: Sandbox) => value.replaceAll(SENTINEL, s.sentinel).replaceAll('@ROOT@', s.root);
const html = (topicPath: string) =>
  topicHtml('a/b', 'x').replace('path="a/b"', `path="${topicPath.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"`);

/** How long a probe may run before it counts as hung (and its whole process group is killed). */
export const PROBE_TIMEOUT_MS = 15_000;
let probeEnv: Record<string, string> = {};
/** Set when a run of the current probe printed a Node stack trace (reported by the bench, not asserted). */
let stackTraceSeen = false;

async function brvExit(cwd: string, args: string[]): Promise<number | null> {
  if (!args.every(NUL_FREE)) return -1; // no process can be given a NUL in an argument
  const run = await runCli(cwd, [...args, '--format', 'json'], { killAfterMs: PROBE_TIMEOUT_MS, killGroup: true, env: probeEnv });
  if (/\n\s+at .+:\d+:\d+/.test(run.stderr)) stackTraceSeen = true;
  return run.exitCode;
}

/**
 * A sample for the test: `perSurface[kind]` payloads per surface, rotated so that different surfaces
 * get different payloads and together cover every one; export and connector-target probes all; no known failures.
 */
export function sampleProbes(perSurface: { paths: number; names: number; urls: number }): Probe[] {
  const bySurface = new Map<string, Probe[]>();
  for (const probe of allProbes()) if (!probe.known) bySurface.set(probe.surface, [...(bySurface.get(probe.surface) ?? []), probe]);
  const sample: Probe[] = [];
  [...bySurface.values()].forEach((probes, k) => {
    const kind = HOSTILE_PATHS.includes(probes[0]!.payload) ? 'paths' : HOSTILE_NAMES.includes(probes[0]!.payload) ? 'names' : 'urls';
    const count = probes.length <= 12 ? probes.length : perSurface[kind];
    const step = Math.max(1, Math.floor(probes.length / count));
    for (let j = 0; j < count; j++) sample.push(probes[(k * 5 + j * step) % probes.length]!);
  });
  return sample;
}

/** Every probe: each hostile value through each surface that takes it. */
export function allProbes(): Probe[] {
  const probes: Probe[] = [];
  for (const payload of HOSTILE_PATHS) {
    probes.push(
      {
        surface: 'curate --html-file (topic path)',
        payload,
        mustRefuse: refuse(payload),
        async run(s, n) {
          const file = path.join(s.root, 'inputs', `topic-${n}.html`);
          await writeFile(file, html(fill(payload, s)));
          return brvExit(s.repo, ['curate', '--html-file', file]);
        },
        allowed: () => ['inputs'],
      },
      { surface: 'read', payload, mustRefuse: refuse(payload), run: (s) => brvExit(s.repo, ['read', fill(payload, s)]) },
      { surface: 'rm', payload, mustRefuse: refuse(payload), run: (s) => brvExit(s.repo, ['rm', fill(payload, s)]) },
      {
        surface: 'rm --recursive',
        payload,
        mustRefuse: refuse(payload),
        run: (s) => brvExit(s.repo, ['rm', '--recursive', fill(payload, s)]),
      },
      { surface: 'ls', payload, mustRefuse: false, run: (s) => brvExit(s.repo, ['ls', fill(payload, s)]) },
      { surface: 'vc log <path>', payload, mustRefuse: false, run: (s) => brvExit(s.repo, ['vc', 'log', fill(payload, s)]) },
    );
  }
  for (const payload of HOSTILE_NAMES) {
    probes.push(
      {
        surface: 'vc branch <name>',
        payload,
        mustRefuse: refuse(payload),
        run: (s) => brvExit(s.repo, ['vc', 'branch', fill(payload, s)]),
      },
      {
        surface: 'vc checkout <name>',
        payload,
        mustRefuse: refuse(payload),
        run: (s) => brvExit(s.repo, ['vc', 'checkout', fill(payload, s)]),
      },
      { surface: 'vc merge <name>', payload, mustRefuse: refuse(payload), run: (s) => brvExit(s.repo, ['vc', 'merge', fill(payload, s)]) },
      {
        surface: 'vc branch -d <name>',
        payload,
        mustRefuse: refuse(payload),
        run: (s) => brvExit(s.repo, ['vc', 'branch', '-d', fill(payload, s)]),
      },
      { surface: 'query --at <name>', payload, mustRefuse: false, run: (s) => brvExit(s.repo, ['query', 'x', '--at', fill(payload, s)]) },
      {
        surface: 'vc remote add <name>',
        payload,
        mustRefuse: refuse(payload),
        async run(s) {
          const code = await brvExit(s.repo, ['vc', 'remote', 'add', fill(payload, s), s.bare]);
          return code;
        },
      },
      { surface: 'vc push <remote>', payload, mustRefuse: refuse(payload), run: (s) => brvExit(s.repo, ['vc', 'push', fill(payload, s)]) },
      {
        surface: 'vc fetch <remote>',
        payload,
        mustRefuse: refuse(payload),
        run: (s) => brvExit(s.repo, ['vc', 'fetch', fill(payload, s)]),
      },
      { surface: 'sync <remote>', payload, mustRefuse: refuse(payload), run: (s) => brvExit(s.repo, ['sync', fill(payload, s)]) },
      {
        surface: 'source add --alias <alias>',
        payload,
        mustRefuse: refuse(payload),
        run: (s) => brvExit(s.repo, ['source', 'add', s.other, '--alias', fill(payload, s)]),
      },
      {
        surface: 'connectors install <agent>',
        payload,
        mustRefuse: refuse(payload),
        run: (s) => brvExit(s.repo, ['connectors', 'install', fill(payload, s)]),
      },
    );
  }
  for (const payload of HOSTILE_URLS) {
    probes.push(
      {
        surface: 'vc remote add + vc fetch <url>',
        payload,
        mustRefuse: false,
        async run(s, n) {
          await brvExit(s.repo, ['vc', 'remote', 'add', `evil${n}`, fill(payload, s)]);
          return brvExit(s.repo, ['vc', 'fetch', `evil${n}`]);
        },
      },
      {
        surface: 'vc remote add + sync <url>',
        payload,
        mustRefuse: false,
        async run(s, n) {
          await brvExit(s.repo, ['vc', 'remote', 'add', `evil${n}`, fill(payload, s)]);
          return brvExit(s.repo, ['sync', `evil${n}`]);
        },
      },
      {
        surface: 'vc remote set-url origin + vc push',
        payload,
        mustRefuse: false,
        async run(s) {
          await brvExit(s.repo, ['vc', 'remote', 'set-url', 'origin', fill(payload, s)]);
          return brvExit(s.repo, ['vc', 'push', 'origin']);
        },
      },
      {
        surface: 'vc clone <url>',
        payload,
        mustRefuse: true,
        run: (s, n) => brvExit(path.join(s.root, 'targets'), ['vc', 'clone', fill(payload, s), `clone${n}`]),
        allowed: (n) => [`targets/clone${n}`],
      },
      {
        surface: 'source add <url>',
        payload,
        mustRefuse: true,
        run: (s, n) => brvExit(s.repo, ['source', 'add', fill(payload, s), '--alias', `s${n}`]),
      },
    );
  }
  probes.push(...exportProbes(), ...connectorTargetProbes());
  return probes;
}

/** Export into folders whose ByteRover layout is a symbolic link out, and of a tree planted with hostile entries. */
function exportProbes(): Probe[] {
  const links: Array<[string, string]> = [
    ['.brv', 'outside'],
    ['.brv/context-tree', 'outside'],
    ['.brv/context-tree/a', 'outside'],
  ];
  const probes: Probe[] = links.map(([link, target]) => ({
    surface: 'export <dir> (symlinked layout)',
    payload: `${link} -> ${target}`,
    mustRefuse: true,
    async run(s, n) {
      const dir = path.join(s.root, 'targets', `export${n}`);
      await mkdir(path.dirname(path.join(dir, link)), { recursive: true });
      await symlink(path.join(s.root, target), path.join(dir, link));
      return brvExit(s.repo, ['export', dir]);
    },
    allowed: (n) => [`targets/export${n}`],
  }));
  for (const target of ['-x', `--upload-pack=touch ${SENTINEL}`, '@ROOT@/outside/../targets/exp-dots']) {
    probes.push({
      surface: 'export <dir>',
      payload: target,
      mustRefuse: false,
      run: (s) => brvExit(s.repo, ['export', fill(target, s)]),
      allowed: () => ['targets/exp-dots'],
    });
  }
  probes.push({
    surface: 'export of a planted tree (symlink, backslash, dot-dot and .git entries)',
    payload: 'planted tree',
    mustRefuse: false,
    run: (s, n) => brvExit(s.planted, ['export', path.join(s.root, 'targets', `planted${n}`)]),
    allowed: (n) => [`targets/planted${n}`],
    // Whatever it exports, it makes no link and no file from a backslash or .git name.
    async verify(s, n) {
      const dir = path.join(s.root, 'targets', `planted${n}`);
      if (!existsSync(dir)) return [];
      const entries = await readdir(dir, { recursive: true, withFileTypes: true });
      return entries
        .filter((e) => e.isSymbolicLink() || e.name.includes('\\') || e.name === '.git')
        .map((e) => `export made ${path.relative(dir, path.join(e.parentPath, e.name))}${e.isSymbolicLink() ? ' (a symbolic link)' : ''}`);
    },
  });
  return probes;
}

/** Agent config files and folders that are symbolic links out of the repository. */
function connectorTargetProbes(): Probe[] {
  const cases: Array<[string, string, 'file' | 'dir']> = [
    ['claude-code --type skill', '.claude', 'dir'],
    ['claude-code --type skill', '.claude/skills', 'dir'],
    ['claude-code --type hook', '.claude', 'dir'],
    ['claude-code --type mcp', '.mcp.json', 'file'],
    ['claude-code --type rules', 'CLAUDE.md', 'file'],
    ['codex --type rules', 'AGENTS.md', 'file'],
    ['cursor --type mcp', '.cursor', 'dir'],
    ['cursor --type rules', '.cursor/rules', 'dir'],
    ['cline --type rules', '.clinerules', 'dir'],
    ['github-copilot --type rules', '.github', 'dir'],
  ];
  return cases.map(([agent, link, kind]) => ({
    surface: 'connectors install (symlinked target)',
    payload: `${agent}: ${link} -> outside`,
    mustRefuse: true,
    async run(s, n) {
      const target = path.join(s.root, 'outside', `c${n}${kind === 'file' ? '.txt' : ''}`);
      if (kind === 'dir') await mkdir(target);
      else await writeFile(target, 'outside file\n');
      await mkdir(path.dirname(path.join(s.repo, link)), { recursive: true });
      await symlink(target, path.join(s.repo, link));
      const [id, ...rest] = agent.split(' ');
      return brvExit(s.repo, ['connectors', 'install', id!, ...rest]);
    },
  }));
}

export async function makeSandbox(): Promise<Sandbox> {
  const root = await tempDir('brv-probe-');
  // Host names in probes ("a:b", ssh://host/…) must never reach the network: ssh is a stub that fails.
  // (It also outranks a core.sshCommand a probe manages to set, so that probe checks less than it could.)
  const stub = path.join(await tempDir('brv-probe-ssh-'), 'ssh');
  await writeFile(stub, '#!/bin/sh\nexit 255\n', { mode: 0o755 });
  probeEnv = { GIT_SSH_COMMAND: stub, GIT_SSH: stub };
  const s: Sandbox = {
    root,
    repo: path.join(root, 'repo'),
    other: path.join(root, 'other'),
    bare: path.join(root, 'remote.git'),
    sentinel: path.join(root, 'SENTINEL'),
    planted: path.join(root, 'planted'),
    stubDir: path.dirname(stub),
  };
  for (const dir of ['inputs', 'targets', 'outside']) await mkdir(path.join(root, dir));
  await git(root, 'init', '-q', '--bare', '-b', 'main', s.bare);
  for (const repo of [s.repo, s.other, s.planted]) {
    await git(root, 'init', '-q', '-b', 'main', repo);
    await writeFile(path.join(repo, 'README.md'), '# code\n');
    await git(repo, 'add', '.');
    await git(repo, 'commit', '-q', '-m', 'code');
    const init = await brvJson(repo, ['init']);
    if (!init.json?.success) throw new Error(`init failed: ${init.stdout}`);
  }
  await git(s.repo, 'remote', 'add', 'origin', s.bare);
  for (const [repo, topic] of [
    [s.repo, 'team/known'],
    [s.other, 'platform/known'],
  ] as const) {
    const file = path.join(root, 'inputs', `${topic.replace('/', '-')}.html`);
    await writeFile(file, topicHtml(topic, 'known'));
    const run = await brvJson(repo, ['curate', '--html-file', file]);
    if (!run.json?.success) throw new Error(`curate failed: ${run.stdout}`);
  }
  const push = await brvJson(s.repo, ['vc', 'push', '-u', 'origin']);
  if (!push.json?.success) throw new Error(`push failed: ${push.stdout}`);
  await plantHostileTree(s);
  return s;
}

/** A brv tree with a symlink entry pointing out, a backslash name, a `..`-like name and a `.git` folder. */
async function plantHostileTree(s: Sandbox): Promise<void> {
  const run = async (args: string[], input?: string) =>
    (await execa('git', args, { cwd: s.planted, env: ENV, extendEnv: false, input })).stdout.trim();
  const blob = (content: string) => run(['hash-object', '-w', '--stdin'], content);
  const topic = await blob(topicHtml('a/ok', 'fine'));
  const link = await blob(path.join(s.root, 'outside', 'linked.html'));
  const relLink = await blob('../../../../outside/rel-linked.html');
  const format = await blob('1\n');
  const inner = await run(['mktree'], `100644 blob ${topic}\tok.html\n120000 blob ${link}\tlink.html\n120000 blob ${relLink}\trel.html\n`);
  const dotGit = await run(['mktree'], `100644 blob ${topic}\tconfig.html\n`);
  const brvDir = await run(['mktree'], `100644 blob ${format}\tformat\n`);
  // Entries git itself would never write: hash-object --literally skips its checks, as a crafted push could.
  const entries: Array<[string, string, string]> = [
    ['40000', '.brv', brvDir],
    ['40000', '.git', dotGit],
    ['100644', 'a\\..\\..\\escape.html', topic],
    ['40000', 'a', inner],
    ['120000', 'b.html', link],
  ];
  entries.sort((x, y) => (x[1] + (x[0] === '40000' ? '/' : '')).localeCompare(y[1] + (y[0] === '40000' ? '/' : '')));
  const raw = Buffer.concat(entries.map(([mode, name, oid]) => Buffer.concat([Buffer.from(`${mode} ${name}\0`), Buffer.from(oid, 'hex')])));
  const tree = (
    await execa('git', ['hash-object', '-t', 'tree', '-w', '--literally', '--stdin'], {
      cwd: s.planted,
      env: ENV,
      extendEnv: false,
      input: raw,
    })
  ).stdout.trim();
  const tip = await run(['rev-parse', 'refs/brv/heads/main']);
  const commit = await run(['commit-tree', tree, '-p', tip, '-m', 'planted hostile tree']);
  await run(['update-ref', 'refs/brv/heads/main', commit]);
}

/** Every path under the sandbox except the repositories' .git folders, with size and mtime, as "path size mtime". */
async function listing(s: Sandbox): Promise<Map<string, string>> {
  const result = new Map<string, string>();
  const skip = new Set([path.join(s.repo, '.git'), path.join(s.other, '.git'), path.join(s.planted, '.git'), s.bare]);
  const walk = async (dir: string): Promise<void> => {
    for (const name of await readdir(dir)) {
      const full = path.join(dir, name);
      if (skip.has(full)) continue;
      const stat = await lstat(full);
      result.set(path.relative(s.root, full), stat.isDirectory() ? 'dir' : `${stat.size} ${stat.mtimeMs}`);
      if (stat.isDirectory()) await walk(full);
    }
  };
  await walk(s.root);
  return result;
}

async function refs(repo: string, pattern: string[]): Promise<string> {
  const head = await execa('git', ['symbolic-ref', '-q', 'HEAD'], { cwd: repo, env: ENV, extendEnv: false, reject: false });
  return `${head.stdout}\n${await git(repo, 'for-each-ref', '--format=%(objectname) %(refname)', ...pattern)}`;
}

/** Puts the sandbox back after a probe: git config (remotes, sources), symlinks and files a probe was allowed to leave. */
async function restore(s: Sandbox, config: string): Promise<void> {
  await writeFile(path.join(s.repo, '.git', 'config'), config);
  await execa('git', ['clean', '-fdxq'], { cwd: s.repo, env: ENV, extendEnv: false, reject: false });
  for (const dir of ['targets', 'inputs', 'outside']) {
    await rm(path.join(s.root, dir), { recursive: true, force: true });
    await mkdir(path.join(s.root, dir));
  }
}

/** Runs probes one after the other in one sandbox; returns each result with its problems. */
export async function runProbes(probes: readonly Probe[], log?: (result: ProbeResult) => void): Promise<ProbeResult[]> {
  const s = await makeSandbox();
  const results: ProbeResult[] = [];
  try {
    const config = await readFile(path.join(s.repo, '.git', 'config'), 'utf8');
    for (const [n, probe] of probes.entries()) {
      const before = await listing(s);
      const codeRefs = await refs(s.repo, ['refs/heads', 'refs/tags']);
      const brvRefs = await refs(s.repo, ['refs/brv']);
      const sourceRefs = await refs(s.other, []);
      stackTraceSeen = false;
      const exitCode = await probe.run(s, n);
      const problems: string[] = [];
      if (existsSync(s.sentinel)) {
        problems.push('the sentinel command ran');
        await rm(s.sentinel, { force: true });
      }
      const allowed = [...(probe.allowed?.(n) ?? [])];
      const isAllowed = (p: string) => allowed.some((a) => p === a || p.startsWith(`${a}/`)) || p === 'repo' || p.startsWith('repo/');
      const after = await listing(s);
      for (const [p, meta] of after)
        if (!isAllowed(p) && before.get(p) !== meta && !p.startsWith('outside/c'))
          problems.push(`${before.has(p) ? 'changed' : 'appeared'}: ${p}`);
      for (const p of before.keys()) if (!isAllowed(p) && !after.has(p)) problems.push(`vanished: ${p}`);
      // Files the connector probes' symlinks point at must be exactly what the probe made.
      for (const [p, meta] of after)
        if (p.startsWith(`outside/c${n}/`) || (p === `outside/c${n}.txt` && meta.split(' ')[0] !== '13'))
          problems.push(`written through a symlink: ${p}`);
      if ((await refs(s.repo, ['refs/heads', 'refs/tags'])) !== codeRefs) problems.push('code refs or HEAD changed');
      if ((await refs(s.other, [])) !== sourceRefs) problems.push('the knowledge source repository changed');
      if (probe.mustRefuse && exitCode === 0) problems.push('accepted, should be refused');
      problems.push(...((await probe.verify?.(s, n)) ?? []));
      if (exitCode !== 0 && (await refs(s.repo, ['refs/brv'])) !== brvRefs) problems.push('refused, but the knowledge refs changed');
      if (exitCode === null) problems.push(`hung (killed after ${PROBE_TIMEOUT_MS / 1000} s)`);
      const result = {
        surface: probe.surface,
        payload: JSON.stringify(probe.payload).slice(0, 80),
        known: probe.known,
        stackTrace: stackTraceSeen,
        exitCode,
        problems,
      };
      results.push(result);
      log?.(result);
      await restore(s, config);
      // A probe that was accepted (e.g. a new branch) is undone so later probes start from the same state.
      const now = await refs(s.repo, ['refs/brv']);
      if (now !== brvRefs) await resetBrvRefs(s.repo, brvRefs);
    }
  } finally {
    await cleanup(s.root, s.stubDir);
  }
  return results;
}

async function resetBrvRefs(repo: string, snapshot: string): Promise<void> {
  const wanted = new Map(
    snapshot
      .split('\n')
      .slice(1)
      .filter(Boolean)
      .map((line) => line.split(' ') as [string, string])
      .map(([oid, ref]) => [ref, oid]),
  );
  const current = (await git(repo, 'for-each-ref', '--format=%(objectname) %(refname)', 'refs/brv')).split('\n').filter(Boolean);
  for (const line of current) {
    const [, ref] = line.split(' ') as [string, string];
    if (!wanted.has(ref)) await git(repo, 'update-ref', '-d', ref);
  }
  for (const [ref, oid] of wanted) await git(repo, 'update-ref', ref, oid);
  await rm(path.join(repo, '.git', 'brv', 'HEAD'), { force: true });
}
