import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { PassThrough } from 'node:stream';
import { BrvError } from '../base/errors.js';
import type { GitProcesses } from './processes.js';
import { runGitBuffer } from './run.js';

/** A blob's object id, computed as git does (`blob <size>\0<bytes>`, SHA-1 or SHA-256). */
export function blobObjectId(objectFormat: 'sha1' | 'sha256', data: Uint8Array): string {
  return createHash(objectFormat).update(`blob ${data.length}\0`).update(data).digest('hex');
}

/**
 * Writes blobs one at a time through one `git fast-import` (one pack), streamed: an import of
 * 100,000 topics never holds their contents at once. Each blob's id is computed here and returned
 * at once; `close` asks fast-import for every mark and checks they agree. Input is written with
 * backpressure, so a slow git bounds the memory; a git that fails makes `write` and `close` throw.
 */
export class BlobWriter {
  private readonly input = new PassThrough();
  private readonly done: Promise<Buffer>;
  private failure: unknown;
  private readonly oids: string[] = [];

  constructor(
    processes: GitProcesses,
    gitDir: string,
    private readonly objectFormat: 'sha1' | 'sha256',
  ) {
    this.done = runGitBuffer(processes, [`--git-dir=${gitDir}`, 'fast-import', '--quiet'], { input: this.input }).then(
      (result) => result.stdout,
    );
    this.done.catch((error: unknown) => {
      this.failure ??= error;
      this.input.destroy();
    });
  }

  /** Queues a blob; its id. */
  async write(content: string | Uint8Array): Promise<string> {
    if (this.failure !== undefined) throw this.failure;
    const data = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
    const oid = blobObjectId(this.objectFormat, data);
    this.oids.push(oid);
    const header = Buffer.from(`blob\nmark :${this.oids.length}\ndata ${data.length}\n`);
    const more = this.input.write(Buffer.concat([header, data, Buffer.from('\n')]));
    if (!more) await Promise.race([once(this.input, 'drain'), this.done.then(() => undefined)]);
    if (this.failure !== undefined) throw this.failure;
    return oid;
  }

  /** Ends the stream and waits for git; checks that git's ids are the ones returned. */
  async close(): Promise<void> {
    if (this.failure !== undefined) throw this.failure;
    for (let mark = 1; mark <= this.oids.length; mark++) {
      if (!this.input.write(`get-mark :${mark}\n`)) await Promise.race([once(this.input, 'drain'), this.done.then(() => undefined)]);
    }
    this.input.end();
    const stdout = (await this.done).toString('utf8');
    const written = stdout.split('\n').filter((line) => /^[0-9a-f]{40,64}$/.test(line));
    if (written.length !== this.oids.length || written.some((oid, i) => oid !== this.oids[i])) {
      throw new BrvError(
        'git-failed',
        `git fast-import returned ${written.length} object ids for ${this.oids.length} blobs, not the ones expected.`,
      );
    }
  }
}
