import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

// A fake OpenAI Chat Completions server on 127.0.0.1:0 for tests (node:http, the real wire protocol).
//
//   const model = await startFakeOpenAI({ respond: (req, i) => (i === 0 ? { status: 429, headers: { 'retry-after': '1' } } : { text: 'hi' }) });
//   const provider = createOpenAIProvider({ baseUrl: model.url, model: 'fake-model' });
//   ... model.requests[1].json.messages ...
//   await model.close();
//
// Answers, in the order they are looked up:
//   1. `respond(req, index)` — index counts chat requests (GET /models is answered from `models`);
//   2. `script[prompt][turn]` — prompt is the first user message, turn the number of assistant messages
//      already in the request (so concurrent cases and samples each walk their own list);
//   3. `toolCall` — that call on turn 0, then `text` ("done") — the STYLE.md one-liner;
//   4. `text`, default "done".
// An answer is a reply ({ text, toolCalls, usage, finishReason, model }) or a fault:
//   { status: 429, headers: { 'retry-after': '1' }, body }  any HTTP status with an optional body
//   { fault: 'reset' }     destroy the socket before answering (connection reset)
//   { fault: 'hang' }      never answer (set afterHeaders: true to send headers and then stall the body)
//   { fault: 'malformed' } 200 with a body that is not JSON (override with `body`)

export interface RecordedRequest {
  method: string;
  path: string;
  headers: Record<string, string | string[] | undefined>;
  /** Parsed body (undefined when none or not JSON). */
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  json: any;
  body: string;
}

export interface FakeToolCall {
  id?: string;
  name: string;
  /** An object is JSON-encoded; a string is sent as is (to test unparseable arguments). */
  arguments?: Record<string, unknown> | string;
}

export interface FakeReply {
  text?: string;
  toolCalls?: FakeToolCall[];
  usage?: { prompt?: number; completion?: number; total?: number };
  finishReason?: string;
  model?: string;
}

export type FakeFault =
  | { status: number; headers?: Record<string, string>; body?: unknown }
  | { fault: 'reset' }
  | { fault: 'hang'; afterHeaders?: boolean }
  | { fault: 'malformed'; body?: string };

export type FakeAnswer = FakeReply | FakeFault;

export interface FakeModelOptions {
  respond?: (req: RecordedRequest, index: number) => FakeAnswer | undefined | Promise<FakeAnswer | undefined>;
  /** First user prompt → answers by turn. Past the end: `text`. */
  script?: Record<string, FakeAnswer[]>;
  /** Called on turn 0 of every conversation; then `text`. */
  toolCall?: FakeToolCall;
  /** Final text. @default "done" */
  text?: string;
  /** Ids listed by GET /models. @default ["fake-model"] */
  models?: string[];
  /** Listen on this loopback port (a provider coming back where it was). @default 0 (any free port) */
  port?: number;
}

export interface FakeModelServer {
  /** Base URL to hand to the provider (OpenAI: ends in /v1). */
  url: string;
  /** Every request, GET /models included, in arrival order. */
  requests: RecordedRequest[];
  /** Only the chat requests (POST /chat/completions or /messages). */
  chatRequests(): RecordedRequest[];
  close(): Promise<void>;
}

/** Protocol hooks that make the generic fake speak OpenAI or Anthropic. */
export interface FakeProtocol {
  basePath: string;
  chatPath: string;
  modelsPath: string;
  /** The conversation key: first user prompt and turn. */
  conversation(json: unknown): { prompt: string; turn: number };
  render(reply: FakeReply, index: number): unknown;
}

export const OPENAI_PROTOCOL: FakeProtocol = {
  basePath: '/v1',
  chatPath: '/v1/chat/completions',
  modelsPath: '/v1/models',
  conversation(json) {
    const messages: Array<{ role: string; content?: unknown }> = (json as { messages?: [] })?.messages ?? [];
    const first = messages.find((m) => m.role === 'user');
    return { prompt: typeof first?.content === 'string' ? first.content : '', turn: messages.filter((m) => m.role === 'assistant').length };
  },
  render(reply, index) {
    const toolCalls = (reply.toolCalls ?? []).map((c, i) => ({
      id: c.id ?? `call_${index}_${i}`,
      type: 'function',
      function: { name: c.name, arguments: typeof c.arguments === 'string' ? c.arguments : JSON.stringify(c.arguments ?? {}) },
    }));
    const prompt = reply.usage?.prompt ?? 10;
    const completion = reply.usage?.completion ?? 5;
    const usage: Record<string, number> = { prompt_tokens: prompt, completion_tokens: completion };
    if (reply.usage?.total !== undefined || reply.usage === undefined) usage.total_tokens = reply.usage?.total ?? prompt + completion;
    return {
      id: `chatcmpl-${index}`,
      object: 'chat.completion',
      created: 1_700_000_000,
      model: reply.model ?? 'fake-model',
      choices: [
        {
          index: 0,
          message: { role: 'assistant', content: reply.text ?? null, ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}) },
          finish_reason: reply.finishReason ?? (toolCalls.length > 0 ? 'tool_calls' : 'stop'),
        },
      ],
      usage,
    };
  },
};

/** Start a fake OpenAI-compatible server on 127.0.0.1:0. */
export function startFakeOpenAI(opts: FakeModelOptions = {}): Promise<FakeModelServer> {
  return startFakeModel(OPENAI_PROTOCOL, opts);
}

export async function startFakeModel(protocol: FakeProtocol, opts: FakeModelOptions): Promise<FakeModelServer> {
  const requests: RecordedRequest[] = [];
  const sockets = new Set<Socket>();
  let chatIndex = 0;

  const pick = async (req: RecordedRequest, index: number): Promise<FakeAnswer> => {
    const custom = await opts.respond?.(req, index);
    if (custom) return custom;
    const { prompt, turn } = protocol.conversation(req.json);
    const scripted = opts.script?.[prompt];
    if (scripted) return scripted[turn] ?? { text: opts.text ?? 'done' };
    if (opts.toolCall && turn === 0) return { toolCalls: [opts.toolCall] };
    return { text: opts.text ?? 'done' };
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const body = Buffer.concat(chunks).toString('utf8');
    let json: unknown;
    try {
      json = body ? JSON.parse(body) : undefined;
    } catch {
      json = undefined;
    }
    const path = (req.url ?? '/').split('?')[0]!;
    const recorded: RecordedRequest = { method: req.method ?? 'GET', path, headers: { ...req.headers }, json, body };
    requests.push(recorded);
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => {
      res.writeHead(status, { 'content-type': 'application/json', ...headers });
      res.end(typeof payload === 'string' ? payload : JSON.stringify(payload));
    };
    if (req.method === 'GET' && path === protocol.modelsPath) {
      send(200, { object: 'list', data: (opts.models ?? ['fake-model']).map((id) => ({ id, object: 'model', type: 'model' })) });
      return;
    }
    if (req.method !== 'POST' || path !== protocol.chatPath) {
      send(404, { error: { message: `no route ${req.method} ${path}` } });
      return;
    }
    const index = chatIndex++;
    const answer = await pick(recorded, index);
    if ('fault' in answer) {
      if (answer.fault === 'reset') {
        req.socket.destroy();
      } else if (answer.fault === 'hang') {
        if (answer.afterHeaders) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.write('{"id":');
        }
        // never finish; close() destroys the socket
      } else {
        send(200, answer.body ?? '{"choices": [ {"message": ');
      }
      return;
    }
    if ('status' in answer) {
      send(answer.status, answer.body ?? { error: { message: `fake status ${answer.status}` } }, answer.headers);
      return;
    }
    send(200, protocol.render(answer, index));
  };

  const server = createServer((req, res) => {
    handle(req, res).catch((err: unknown) => {
      if (!res.headersSent) res.writeHead(500, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: { message: String(err) } }));
    });
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}${protocol.basePath}`,
    requests,
    chatRequests: () => requests.filter((r) => r.path === protocol.chatPath),
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
