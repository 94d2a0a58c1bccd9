import { Duplex } from 'node:stream';
import type { Socket } from 'node:net';
import type { InflightBudget } from './receiver.js';

// The request bytes each gRPC call holds, counted exactly on the HTTP/2 frames of a connection (RFC 9113
// §4.1: a 9-byte header of length, type, flags and stream id). The connection reaches grpc-js through a
// Duplex that reads the frame headers going both ways: a DATA frame's payload is taken from the port's
// budget as its bytes arrive, for its stream; the stream gives it back when it is over (the server's
// trailers, HEADERS with END_STREAM, or a RST_STREAM either way) or when its connection closes. So a
// call's bytes are held from their first byte until it is answered, on one budget for every connection
// and every stream of each (it used to be per connection, given back whole when any call on it ended).

const CLIENT_PREFACE_BYTES = 24;
const FRAME_HEADER_BYTES = 9;
const DATA = 0x0;
const HEADERS = 0x1;
const RST_STREAM = 0x3;
const END_STREAM = 0x1;

/** Reads HTTP/2 frame headers out of a byte stream; `payload` sees each slice of a frame's payload. */
class FrameReader {
  private header = Buffer.alloc(FRAME_HEADER_BYTES);
  private headerHave = 0;
  private remaining = 0;
  private type = 0;
  private stream = 0;

  constructor(
    private skip: number,
    private readonly onFrame: (type: number, flags: number, stream: number, length: number) => void,
    private readonly payload?: (type: number, stream: number, bytes: number) => boolean,
  ) {}

  /** False when `payload` refused a slice (the connection is to be closed). */
  push(chunk: Buffer): boolean {
    let i = 0;
    if (this.skip > 0) {
      const n = Math.min(this.skip, chunk.length);
      this.skip -= n;
      i = n;
    }
    while (i < chunk.length) {
      if (this.remaining > 0) {
        const n = Math.min(this.remaining, chunk.length - i);
        this.remaining -= n;
        i += n;
        if (this.payload && !this.payload(this.type, this.stream, n)) return false;
        continue;
      }
      const n = Math.min(FRAME_HEADER_BYTES - this.headerHave, chunk.length - i);
      chunk.copy(this.header, this.headerHave, i, i + n);
      this.headerHave += n;
      i += n;
      if (this.headerHave < FRAME_HEADER_BYTES) break;
      this.headerHave = 0;
      const length = this.header.readUIntBE(0, 3);
      this.type = this.header[3]!;
      this.stream = this.header.readUInt32BE(5) & 0x7fffffff;
      this.remaining = length;
      this.onFrame(this.type, this.header[4]!, this.stream, length);
    }
    return true;
  }
}

/**
 * `socket` as the Duplex grpc-js is given, with its calls' request bytes held on `budget` (see above);
 * `onExhausted` runs (and the connection is closed) when a DATA frame's bytes do not fit.
 */
export function countedConnection(socket: Socket, budget: InflightBudget, onExhausted: () => void): Duplex {
  const held = new Map<number, number>();
  const release = (stream: number): void => {
    const n = held.get(stream);
    if (n === undefined) return;
    held.delete(stream);
    budget.give(n);
  };
  const inbound = new FrameReader(
    CLIENT_PREFACE_BYTES,
    (type, _flags, stream) => {
      if (type === RST_STREAM) release(stream);
    },
    (type, stream, n) => {
      if (type !== DATA || stream === 0) return true;
      if (!budget.take(n)) return false;
      held.set(stream, (held.get(stream) ?? 0) + n);
      return true;
    },
  );
  const outbound = new FrameReader(0, (type, flags, stream) => {
    if (type === RST_STREAM || (type === HEADERS && (flags & END_STREAM) !== 0)) release(stream);
  });

  // As Node's HTTP/2 does on a socket it owns: small frames (WINDOW_UPDATE, SETTINGS acks) go out at once,
  // not held back by Nagle's algorithm (which, with delayed ACKs, stalls a large upload to a crawl).
  socket.setNoDelay(true);
  const duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, callback) {
      outbound.push(chunk);
      socket.write(chunk, callback);
    },
    final(callback) {
      socket.end();
      callback();
    },
    destroy(err, callback) {
      socket.destroy();
      callback(err);
    },
  });
  socket.on('data', (chunk: Buffer) => {
    if (!inbound.push(chunk)) {
      onExhausted();
      socket.destroy();
      return;
    }
    if (!duplex.push(chunk)) socket.pause();
  });
  socket.on('end', () => duplex.push(null));
  socket.on('error', () => undefined);
  socket.on('close', () => {
    for (const stream of [...held.keys()]) release(stream);
    duplex.destroy();
  });
  return duplex;
}
