// gen_ai.input.messages / gen_ai.output.messages as the readers see them (semantic-conventions v1.41 message
// JSON), over the shapes producers send: a JSON string or structured value, parts as a string, texts split
// over parts, responses, finish reasons and entries that are not messages.
import { describe, expect, it } from 'vitest';
import { genAiMessages, readGenAiOutput } from '../../src/telemetry/conventions/gen-ai.js';

describe('genAiMessages', () => {
  it.each([
    { name: 'nothing', value: undefined, want: [] },
    { name: 'prose that is not JSON', value: 'hello there', want: [] },
    {
      name: 'one text part',
      value: JSON.stringify([{ role: 'user', parts: [{ type: 'text', content: 'is nginx up?' }] }]),
      want: [{ role: 'user', text: 'is nginx up?', calls: [], responses: [] }],
    },
    {
      name: 'text split over parts, an empty one included',
      value: [
        {
          role: 'assistant',
          parts: [
            { type: 'text', content: 'a' },
            { type: 'text', content: '' },
            { type: 'text', content: 'b' },
          ],
        },
      ],
      want: [{ role: 'assistant', text: 'a\n\nb', calls: [], responses: [] }],
    },
    {
      name: 'parts as a JSON string, a call and a finish reason',
      value: [
        {
          role: 'assistant',
          finish_reason: 'tool_call',
          parts: JSON.stringify([{ type: 'tool_call', id: 'c1', name: 'service-status', arguments: { service: 'nginx' } }]),
        },
      ],
      want: [{ role: 'assistant', calls: [{ id: 'c1', name: 'service-status', arguments: { service: 'nginx' } }], responses: [], finishReason: 'tool_call' }],
    },
    {
      name: 'responses with and without an id, and entries that are not messages',
      value: [
        'not a message',
        null,
        {
          role: 'tool',
          parts: [
            { type: 'tool_call_response', id: 'c1', response: 'active' },
            { type: 'tool_call_response', result: 'ok' },
          ],
        },
      ],
      want: [{ role: 'tool', calls: [], responses: [{ id: 'c1', response: 'active' }, { response: 'ok' }] }],
    },
    {
      name: 'messages as an indexed object, text and call in one message',
      value: {
        1: {
          role: 'assistant',
          parts: [
            { type: 'text', content: 'checking' },
            { type: 'tool_call', name: 'ls' },
          ],
        },
        0: { role: 'user', parts: [] },
      },
      want: [
        { role: 'user', calls: [], responses: [] },
        { role: 'assistant', text: 'checking', calls: [{ name: 'ls', arguments: {} }], responses: [] },
      ],
    },
  ])('reads $name', ({ value, want }) => {
    expect(genAiMessages(value)).toEqual(want);
  });

  it("joins every output message's calls, in order, and keeps the first text and finish reason", () => {
    const out = readGenAiOutput({
      attributes: {
        'gen_ai.output.messages': JSON.stringify([
          { role: 'assistant', finish_reason: 'tool_call', parts: [{ type: 'tool_call', id: 'a', name: 'x', arguments: {} }] },
          {
            role: 'assistant',
            finish_reason: 'stop',
            parts: [
              { type: 'text', content: 'done' },
              { type: 'tool_call', id: 'b', name: 'y', arguments: { n: 1 } },
            ],
          },
        ]),
      },
    });
    expect(out).toEqual({
      calls: [
        { id: 'a', name: 'x', arguments: {} },
        { id: 'b', name: 'y', arguments: { n: 1 } },
      ],
      text: 'done',
      finishReason: 'tool_call',
    });
  });
});
