// readOiOutputText is the OpenInference output reader without the calls (the normaliser uses it when the
// GenAI output messages gave the calls already): for every attribute shape it must say what readOiOutput
// says about presence and text.
import { SemanticConventions as OI } from '@arizeai/openinference-semantic-conventions';
import { describe, expect, it } from 'vitest';
import { openInferenceMessages, readOiOutput, readOiOutputText } from '../../src/telemetry/conventions/openinference.js';

const P = OI.LLM_OUTPUT_MESSAGES;
const call = { id: 'call_1', name: 'service_status', arguments: { host: 'web-01' } };

const shapes: Array<[string, Record<string, unknown>]> = [
  ['no output keys', { 'llm.input_messages.0.message.role': 'user' }],
  ['a call, no content (keys scanned only)', openInferenceMessages(P, [{ role: 'assistant', toolCalls: [call] }]) as Record<string, unknown>],
  ['a call and text', openInferenceMessages(P, [{ role: 'assistant', content: 'checking', toolCalls: [call] }]) as Record<string, unknown>],
  ['text in a later message', { ...(openInferenceMessages(P, [{ role: 'assistant' }, { role: 'assistant', content: 'second' }]) as Record<string, unknown>) }],
  [
    'text in contents parts',
    {
      [`${P}.0.message.role`]: 'assistant',
      [`${P}.0.message.contents.0.message_content.type`]: 'text',
      [`${P}.0.message.contents.0.message_content.text`]: 'part',
    },
  ],
  ['a tool_use part only', { [`${P}.0.message.contents.0.message_content.type`]: 'tool_use', [`${P}.0.message.contents.0.tool_call.function.name`]: 'x' }],
  ['a primitive at an index', { [`${P}.0`]: 'loose' }],
  ['non-index keys only', { [`${P}.first.message.role`]: 'assistant' }],
  ['a structured value below the prefix', { [`${P}.0`]: { message: { content: 'nested' } } }],
  ['the list as JSON at the prefix', { [P]: JSON.stringify([{ message: { role: 'assistant', content: 'json' } }]) }],
  ['a plain string at the prefix', { [P]: 'not json', [`${P}.0.message.role`]: 'assistant' }],
  ['the list as an array value', { [P]: [{ message: { content: 'array' } }] }],
];

describe('readOiOutputText', () => {
  it.each(shapes)('agrees with readOiOutput on presence and text: %s', (_name, attributes) => {
    const full = readOiOutput({ attributes });
    const textOnly = readOiOutputText({ attributes });
    expect(textOnly === undefined).toBe(full === undefined);
    if (full) expect(textOnly).toEqual(full.text !== undefined ? { text: full.text } : {});
  });
});
