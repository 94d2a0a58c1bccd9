import { connect, type ClientHttp2Session, type ClientHttp2Stream } from 'node:http2';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGrpcReceiver, TRACE_EXPORT_PATH, type GrpcReceiver } from '../../src/traces/grpc-receiver.js';
import { encodeTraceRequest } from '../../src/traces/otlp-proto.js';
import { createTracePipeline } from '../../src/traces/pipeline.js';
import { request, span } from './_otlp.js';

// The gRPC receiver's in-flight budget used to be kept per connection and given back whole whenever any
// call on that connection was handled: a client multiplexing calls on one connection could finish a small
// one to free the bytes of large ones still arriving, so the budget bounded nothing. Now each call's bytes
// are counted on its own HTTP/2 stream as they arrive and given back when that call is over.

const MIB = 1024 * 1024;
const BUDGET = 8 * MIB;
let receiver: GrpcReceiver;
let exhausted = 0;

beforeEach(async () => {
  exhausted = 0;
  const pipeline = createTracePipeline({ rules: [], assembler: { quiet: 60 }, onOutcome: () => undefined });
  receiver = await createGrpcReceiver({
    pipeline,
    port: 0,
    tickMs: 0,
    limits: { maxInflightBytes: BUDGET },
    onRequest: (r) => void (r.status === 8 && r.path === 'connection' && exhausted++),
  });
  await receiver.listen();
});
afterEach(() => receiver.close());

const sessions: ClientHttp2Session[] = [];
afterEach(() => {
  for (const s of sessions.splice(0)) s.destroy();
});
function session(): ClientHttp2Session {
  const s = connect(`http://127.0.0.1:${receiver.port}`);
  s.on('error', () => undefined);
  sessions.push(s);
  return s;
}

/** A gRPC call on `s` whose message claims `messageBytes` and of which `sendBytes` are sent (all, then ended, when equal). */
function call(
  s: ClientHttp2Session,
  messageBytes: number,
  sendBytes = messageBytes,
  message?: Uint8Array,
): { stream: ClientHttp2Stream; status: Promise<string>; sent: Promise<void> } {
  const stream = s.request({ ':method': 'POST', ':path': TRACE_EXPORT_PATH, 'content-type': 'application/grpc', te: 'trailers' });
  stream.on('error', () => undefined);
  const status = new Promise<string>((resolve) => {
    stream.on('trailers', (t) => resolve(String(t['grpc-status'])));
    stream.on('response', (h) => h['grpc-status'] !== undefined && resolve(String(h['grpc-status'])));
    stream.on('close', () => resolve('closed'));
  });
  const prefix = Buffer.alloc(5);
  prefix.writeUInt32BE(messageBytes, 1);
  stream.write(prefix);
  // Sent: handed to the connection, which HTTP/2 flow control allows only as the server reads the stream.
  let sent: Promise<void>;
  if (message) sent = new Promise((resolve) => stream.end(message, resolve));
  else {
    // 0xff is no valid protobuf tag: a whole message is answered INVALID_ARGUMENT (3), which is fine here.
    sent = new Promise((resolve) => {
      stream.write(Buffer.alloc(sendBytes, 0xff), () => resolve());
      stream.on('close', resolve);
    });
    if (sendBytes === messageBytes) stream.end();
  }
  return { stream, status, sent };
}

/** A valid Export on `s`: its answer also says the server has read everything sent on `s` before it. */
function exportOn(s: ClientHttp2Session): Promise<string> {
  // The server may have closed the connection already (the budget ran out while the last call was sent).
  if (s.destroyed || s.closed) return Promise.resolve('closed');
  const body = encodeTraceRequest(request([span({ trace: 1, id: 1, name: 'invoke_agent ops', start: 0, end: 5 })]));
  return call(s, body.length, body.length, body).status;
}

describe('gRPC in-flight request bytes (budget 8 MiB)', { timeout: 60_000 }, () => {
  it('counts calls still arriving on one connection, even when another call on it finishes', async () => {
    const s = session();
    await call(s, 6 * MIB, 5 * MIB).sent;
    // A small call answered: it used to give back the 5 MiB of the call still arriving.
    expect(await exportOn(s)).toBe('0');
    await call(s, 6 * MIB, 5 * MIB).sent;
    expect(await exportOn(s)).toBe('closed');
    expect(exhausted).toBe(1);
    // Another connection is served: the bytes of the closed one were given back.
    expect(await exportOn(session())).toBe('0');
  });

  it('counts calls arriving on different connections on one budget', async () => {
    const a = session();
    const b = session();
    await call(a, 6 * MIB, 5 * MIB).sent;
    expect(await exportOn(a)).toBe('0');
    await call(b, 6 * MIB, 5 * MIB).sent;
    expect(await exportOn(b)).toBe('closed');
    expect(exhausted).toBe(1);
  });

  it('gives a call its bytes back when it is answered or reset, so calls one after another never run out', async () => {
    const s = session();
    for (let i = 0; i < 4; i++) expect(await call(s, 5 * MIB).status).toBe('3');
    // A call abandoned half-way (RST_STREAM) gives its bytes back too.
    for (let i = 0; i < 3; i++) {
      const { stream, sent } = call(s, 6 * MIB, 5 * MIB);
      await sent;
      expect(await exportOn(s)).toBe('0');
      stream.close();
    }
    expect(await exportOn(s)).toBe('0');
    expect(exhausted).toBe(0);
  });
});
