import type { Readable, Writable } from 'node:stream';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ErrorCode, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';

/** The largest JSON-RPC message (one line, without its newline) the server reads: the SDK's own default. */
const MAX_MESSAGE_BYTES = 10 * 1024 * 1024;

/** How much of the start and the end of a discarded message is kept, to find its id. */
const EDGE_BYTES = 512;

const ID = String.raw`(-?\d{1,15}|"(?:[^"\\]|\\.){0,256}")`;
/** The id as the last member of the top-level object (where the SDK's clients put it)… */
const ID_AT_END = new RegExp(String.raw`"id"\s*:\s*${ID}\s*\}\s*$`);
/** …or as a member before any other than "jsonrpc" and "method". */
const ID_AT_START = new RegExp(String.raw`^\s*\{\s*(?:"(?:jsonrpc|method)"\s*:\s*"[^"\\]{0,128}"\s*,\s*)*"id"\s*:\s*${ID}\s*[,}]`);

/**
 * MCP over stdio (newline-delimited JSON-RPC) with a bounded line reader, in place of the SDK's
 * StdioServerTransport: that one closes the whole transport (and so ends the server) when its buffer
 * passes 10 MB, and answers nothing to a line it cannot parse. Here a line longer than the limit is
 * discarded as it arrives (never buffered whole) and answered with an InvalidRequest error carrying
 * its id when the id can be found at either end of the line; a line that is not JSON gets a
 * ParseError; an invalid request an InvalidRequest. The server keeps serving after each.
 */
export class BoundedStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;

  private chunks: Buffer[] = [];
  private size = 0;
  /** Set while the current line is over the limit: its first and last bytes, and its length so far. */
  private discarding: { head: Buffer; tail: Buffer; bytes: number } | undefined;
  private started = false;
  private closed = false;

  constructor(
    private readonly stdin: Readable = process.stdin,
    private readonly stdout: Writable = process.stdout,
    readonly maxMessageBytes = MAX_MESSAGE_BYTES,
  ) {}

  async start(): Promise<void> {
    if (this.started) throw new Error('BoundedStdioTransport already started');
    this.started = true;
    this.stdin.on('data', this.onData);
    this.stdin.on('end', this.onEnd);
    this.stdin.on('close', this.onEnd);
    this.stdin.on('error', this.onStreamError);
    this.stdout.on('error', this.onStreamError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    if (this.closed || this.stdout.destroyed || this.stdout.writableEnded) return;
    const json = `${JSON.stringify(message)}\n`;
    await new Promise<void>((resolve) => {
      if (this.stdout.write(json)) resolve();
      else {
        // Resolved by drain, or by the stream going away (a client that died mid-answer).
        const done = () => {
          this.stdout.off('drain', done);
          this.stdout.off('close', done);
          resolve();
        };
        this.stdout.once('drain', done);
        this.stdout.once('close', done);
      }
    });
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.stdin.off('data', this.onData);
    this.stdin.off('end', this.onEnd);
    this.stdin.off('close', this.onEnd);
    // Errors after close (EPIPE on a dead client) must not become uncaught exceptions.
    this.stdin.off('error', this.onStreamError);
    this.stdin.on('error', () => {});
    this.stdout.off('error', this.onStreamError);
    this.stdout.on('error', () => {});
    this.stdin.pause();
    this.chunks = [];
    this.size = 0;
    this.discarding = undefined;
    this.onclose?.();
  }

  private readonly onEnd = () => void this.close();

  private readonly onStreamError = (error: Error) => {
    this.onerror?.(error);
    void this.close();
  };

  private readonly onData = (chunk: Buffer) => {
    let start = 0;
    while (start <= chunk.length && !this.closed) {
      const newline = chunk.indexOf(10, start);
      const end = newline === -1 ? chunk.length : newline;
      this.take(chunk.subarray(start, end));
      if (newline === -1) break;
      this.endOfLine();
      start = newline + 1;
    }
  };

  /** Adds part of the current line: buffered while within the limit, otherwise only its edges kept. */
  private take(piece: Buffer): void {
    if (piece.length === 0) return;
    if (this.discarding) {
      this.discarding.tail = lastBytes(Buffer.concat([this.discarding.tail, lastBytes(piece)]));
      this.discarding.bytes += piece.length;
      return;
    }
    if (this.size + piece.length <= this.maxMessageBytes) {
      this.chunks.push(piece);
      this.size += piece.length;
      return;
    }
    // Over the limit, so at least EDGE_BYTES long: concat copies only the first EDGE_BYTES.
    const head = Buffer.concat([...this.chunks, piece], EDGE_BYTES);
    const tail = lastBytes(Buffer.concat([...this.chunks.slice(-1).map(lastBytes), lastBytes(piece)]));
    this.discarding = { head, tail, bytes: this.size + piece.length };
    this.chunks = [];
    this.size = 0;
  }

  private endOfLine(): void {
    const discarded = this.discarding;
    if (discarded) {
      this.discarding = undefined;
      const id = idAtEdges(discarded.head.toString('utf8'), discarded.tail.toString('utf8'));
      this.reply(
        id,
        ErrorCode.InvalidRequest,
        `Message too large: ${discarded.bytes} bytes, the limit is ${this.maxMessageBytes} bytes. Send a smaller request.`,
      );
      return;
    }
    const line = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks);
    this.chunks = [];
    this.size = 0;
    const text = line.toString('utf8').replace(/\r$/, '');
    if (text.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      this.reply(undefined, ErrorCode.ParseError, `Parse error: ${(error as Error).message}`);
      return;
    }
    const parsed = JSONRPCMessageSchema.safeParse(value);
    if (parsed.success) {
      this.onmessage?.(parsed.data);
      return;
    }
    this.onerror?.(new Error(`Invalid JSON-RPC message: ${parsed.error.message.slice(0, 500)}`));
    // Only requests are answered: a notification or a response gets no reply.
    const object = typeof value === 'object' && value !== null ? (value as Record<string, unknown>) : undefined;
    const id = object?.id;
    const validId = typeof id === 'string' || (typeof id === 'number' && Number.isInteger(id)) ? (id as RequestId) : undefined;
    if (!object || (validId !== undefined && 'method' in object))
      this.reply(validId, ErrorCode.InvalidRequest, 'Invalid request: not a JSON-RPC 2.0 message.');
  }

  private reply(id: RequestId | undefined, code: number, message: string): void {
    void this.send({ jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message } } as JSONRPCMessage);
  }
}

function lastBytes(buffer: Buffer): Buffer {
  return buffer.length <= EDGE_BYTES ? buffer : Buffer.from(buffer.subarray(buffer.length - EDGE_BYTES));
}

/** The id of a message too large to parse, when its first or last bytes name it unambiguously. */
export function idAtEdges(head: string, tail: string): RequestId | undefined {
  const match = ID_AT_START.exec(head) ?? ID_AT_END.exec(tail);
  if (!match) return undefined;
  try {
    const id = JSON.parse(match[1]!) as unknown;
    return typeof id === 'string' || (typeof id === 'number' && Number.isSafeInteger(id)) ? id : undefined;
  } catch {
    return undefined;
  }
}
