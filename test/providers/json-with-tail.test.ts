import { describe, expect, it } from 'vitest';
import { jsonWithTail } from '../../src/providers/_http.js';

describe('request bodies with the tool definitions serialised once', () => {
  it.each([
    { name: 'a usual request', head: { model: 'm', messages: [{ role: 'user', content: 'hi "there" ✓' }], temperature: 0.7, stream: false } },
    { name: 'an empty head', head: {} },
  ])('writes the same bytes as JSON.stringify of the whole body ($name)', ({ head }) => {
    const tools = [{ type: 'function', function: { name: 't', description: 'd', parameters: { type: 'object' } } }];
    const tail = { tools, tool_choice: 'auto' };
    // What goes on the wire: the UTF-8 bytes of the whole body's JSON.
    const wire = (t: ReturnType<typeof jsonWithTail>) => Buffer.from(t.body()).toString('utf8');
    expect(wire(jsonWithTail(head, tail, tools))).toBe(JSON.stringify({ ...head, ...tail }));
    expect(wire(jsonWithTail(head, tail, tools))).toBe(JSON.stringify({ ...head, ...tail })); // from the cache
    expect(wire(jsonWithTail(head, undefined, undefined))).toBe(JSON.stringify(head));
  });

  it('serialises the tools of a layout once, not per request', () => {
    // Every request used to re-serialise the whole tool list (about 10 KB for the fleet toolset).
    let serialised = 0;
    const tools = [{ name: 't', toJSON: () => (serialised++, { name: 't' }) }];
    for (let i = 0; i < 3; i++) jsonWithTail({ model: 'm', messages: [{ role: 'user', content: String(i) }] }, { tools }, tools);
    expect(serialised).toBe(1);
  });
});
