import { cliIo } from './io.js';

/** Standard input, up to `limit` bytes (what is past it is not read: the caller's checks report the size). */
export async function readStdin(limit: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of cliIo().stdin as AsyncIterable<Buffer>) {
    chunks.push(chunk);
    size += chunk.length;
    if (size > limit) break;
  }
  return Buffer.concat(chunks);
}
