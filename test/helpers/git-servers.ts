import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { userInfo } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { ENV, tempDir } from './repo.js';

// Real git servers on loopback for the tests: git's own smart-HTTP backend behind Basic
// authentication, and Debian's OpenSSH server with key authentication. Each is started by a test
// (or once per test file, in test.before) and closed by it (test.after.always / t.teardown); their
// files live in tempDir() folders, removed when the test process exits.

export interface SmartHttpServer {
  port: number;
  /** `http://[user:password@]127.0.0.1:<port>/<relative>` for a repository under the project root. */
  url(relative: string, credentials?: string): string;
  /** Every request the server answered, as "METHOD /path?query" (for tests that count round trips). */
  requests: string[];
  close(): Promise<void>;
}

/**
 * A real smart-HTTP git server on loopback: `git http-backend` (serving every repository under
 * `projectRoot`, pushes included) behind Basic authentication as user `alice` with `password`; any
 * other credentials (or none) get 401.
 */
export async function smartHttp(projectRoot: string, password: string): Promise<SmartHttpServer> {
  const { createServer } = await import('node:http');
  const expected = `Basic ${Buffer.from(`alice:${password}`).toString('base64')}`;
  const requests: string[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    requests.push(`${req.method} ${req.url}`);
    if (req.headers.authorization !== expected) {
      res.writeHead(401, { 'WWW-Authenticate': 'Basic realm="brv-test"' });
      res.end('no\n');
      return;
    }
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    const child = spawn('git', ['http-backend'], {
      env: {
        ...ENV,
        GIT_PROJECT_ROOT: projectRoot,
        GIT_HTTP_EXPORT_ALL: '1',
        REMOTE_USER: 'alice',
        REQUEST_METHOD: req.method ?? 'GET',
        PATH_INFO: decodeURIComponent(url.pathname),
        QUERY_STRING: url.search.slice(1),
        CONTENT_TYPE: req.headers['content-type'] ?? '',
        ...(req.headers['content-encoding'] ? { HTTP_CONTENT_ENCODING: req.headers['content-encoding'] } : {}),
      },
    });
    req.pipe(child.stdin);
    const chunks: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
    child.on('close', () => {
      const output = Buffer.concat(chunks);
      const split = output.indexOf('\r\n\r\n');
      const head = output.subarray(0, split).toString('latin1');
      let status = 200;
      const headers: Record<string, string> = {};
      for (const line of head.split('\r\n')) {
        const colon = line.indexOf(':');
        const name = line.slice(0, colon).trim();
        const value = line.slice(colon + 1).trim();
        if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
        else headers[name] = value;
      }
      res.writeHead(status, headers);
      res.end(output.subarray(split + 4));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    port,
    url: (relative, credentials) => `http://${credentials ? `${credentials}@` : ''}127.0.0.1:${port}/${relative}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Environment variables that give git (and brv's git children) a credential helper for the length of
 * one command, without touching any config file: `store` reading `file`, which holds
 * `http://alice:<password>@127.0.0.1:<port>` lines.
 */
export async function credentialStore(lines: string[]): Promise<Record<string, string>> {
  const file = path.join(await tempDir('brv-credentials-'), 'git-credentials');
  await writeFile(file, lines.map((line) => `${line}\n`).join(''), { mode: 0o600 });
  return { GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: 'credential.helper', GIT_CONFIG_VALUE_0: `store --file=${file}` };
}

export interface SshServer {
  port: number;
  /** The user the client logs in as: the user running the tests (sshd runs as that user, not root). */
  user: string;
  /** `ssh://<user>@127.0.0.1:<port><absolute path>` for a repository on this machine. */
  url(absolutePath: string): string;
  /**
   * A GIT_SSH_COMMAND for this server: the client key made for it (or `key`), and a known_hosts file
   * that trusts the server unless `knownHosts` names another (an empty file: the host is unknown).
   * No other ssh configuration, agent or known_hosts of the machine's user is used. ssh's own
   * defaults otherwise (no BatchMode: what keeps ssh from prompting is brv's, under test).
   */
  sshCommand(options?: { knownHosts?: string; key?: string }): string;
  /** A key sshd does not accept. */
  strangerKey: string;
  /** What sshd said (its -e log, the last 20 000 characters): why it refused a login, for a failing test. */
  log(): string;
  close(): Promise<void>;
}

const quote = (word: string) => `'${word.replace(/'/g, "'\\''")}'`;

/** A loopback port nothing listens on right now. */
export async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

async function keygen(file: string): Promise<void> {
  await promisify(execFile)('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'brv-test', '-f', file], { env: ENV });
}

/**
 * Whether the ssh server tests run here: always in CI (a missing sshd is a failure there, not a skip;
 * `.ci/run` installs the Debian package openssh-server), elsewhere when /usr/sbin/sshd is installed.
 */
export function sshdAvailable(): boolean {
  try {
    accessSync('/usr/sbin/sshd', constants.X_OK);
    return true;
  } catch {
    if (process.env.CI) throw new Error('CI must have sshd for the ssh tests: .ci/run installs the Debian package "openssh-server".');
    return false;
  }
}

/**
 * Debian's OpenSSH server (`/usr/sbin/sshd -D -e`) on a free loopback port, as the current user: its
 * own host key, key authentication only against an authorized_keys file of its own, no PAM, its pid
 * file in a temp folder. As root, sshd needs its privilege-separation directory (/run/sshd, which
 * Debian's service would make): made here when missing. `.ci/run` installs openssh-server.
 */
export async function startSshd(): Promise<SshServer> {
  const dir = await tempDir('brv-sshd-');
  const hostKey = path.join(dir, 'host_key');
  const clientKey = path.join(dir, 'client_key');
  const strangerKey = path.join(dir, 'stranger_key');
  await Promise.all([keygen(hostKey), keygen(clientKey), keygen(strangerKey)]);
  await writeFile(path.join(dir, 'authorized_keys'), await readFile(`${clientKey}.pub`, 'utf8'));
  if (process.getuid?.() === 0) await mkdir('/run/sshd', { recursive: true, mode: 0o755 });
  const user = userInfo().username;
  let child: ChildProcess | undefined;
  let port = 0;
  let log = '';
  for (let attempt = 0; attempt < 5 && !child; attempt++) {
    port = await freePort();
    const config = path.join(dir, 'sshd_config');
    await writeFile(
      config,
      [
        'ListenAddress 127.0.0.1',
        `Port ${port}`,
        `HostKey ${hostKey}`,
        `PidFile ${path.join(dir, 'sshd.pid')}`,
        `AuthorizedKeysFile ${path.join(dir, 'authorized_keys')}`,
        'UsePAM no',
        'StrictModes no',
        'PubkeyAuthentication yes',
        'PasswordAuthentication no',
        'KbdInteractiveAuthentication no',
        'PermitRootLogin prohibit-password',
        `AllowUsers ${user}`,
        // Tests run a few connections at once; sshd's default (10:30:100) drops some beyond 10.
        'MaxStartups 64',
        'Subsystem sftp none',
        '',
      ].join('\n'),
    );
    const started = spawn('/usr/sbin/sshd', ['-D', '-e', '-f', config], { env: ENV, stdio: ['ignore', 'ignore', 'pipe'] });
    log = '';
    const ready = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 10_000);
      started.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
        log += chunk;
        if (/Server listening on 127\.0\.0\.1 port/.test(log)) {
          clearTimeout(timer);
          resolve(true);
        }
      });
      started.on('exit', () => {
        clearTimeout(timer);
        resolve(false);
      });
      started.on('error', () => {
        clearTimeout(timer);
        resolve(false);
      });
    });
    if (ready) child = started;
    else started.kill('SIGKILL');
  }
  if (!child) throw new Error(`sshd did not start: ${log}`);
  const running = child;
  // Also when the test process ends without test.after.always (a crash, a timeout): never left running.
  const stop = () => running.kill('SIGTERM');
  process.once('exit', stop);
  // Keep reading its log (so a full pipe never blocks it), the end of it kept for failing tests.
  running.stderr!.on('data', (chunk: string) => {
    log = (log + chunk).slice(-20_000);
  });
  const knownHostsLine = `[127.0.0.1]:${port} ${(await readFile(`${hostKey}.pub`, 'utf8')).trim().split(' ').slice(0, 2).join(' ')}`;
  const trustedHosts = path.join(dir, 'known_hosts');
  await writeFile(trustedHosts, `${knownHostsLine}\n`);
  return {
    port,
    user,
    url: (absolutePath) => `ssh://${user}@127.0.0.1:${port}${absolutePath}`,
    strangerKey,
    log: () => log,
    sshCommand: (options = {}) =>
      [
        'ssh',
        '-F',
        '/dev/null',
        '-i',
        quote(options.key ?? clientKey),
        '-o',
        'IdentitiesOnly=yes',
        '-o',
        'IdentityAgent=none',
        '-o',
        `UserKnownHostsFile=${quote(options.knownHosts ?? trustedHosts)}`,
        '-o',
        'GlobalKnownHostsFile=/dev/null',
      ].join(' '),
    close: () =>
      new Promise<void>((resolve) => {
        process.removeListener('exit', stop);
        if (running.exitCode !== null || running.signalCode !== null) return resolve();
        running.once('exit', () => resolve());
        running.kill('SIGTERM');
      }),
  };
}
