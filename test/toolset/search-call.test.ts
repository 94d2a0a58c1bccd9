// A search-layout run call is read one way (layout.ts readSearchCall) with and without a toolset: the two
// readers disagreed on `runnable`/`tool` keys and on args sent as JSON text.
import { describe, expect, it } from 'vitest';
import { loadToolset } from '../../src/toolset/index.js';
import { resolveCall, resolveWithoutToolset } from '../../src/toolset/resolve.js';
import type { ToolCall } from '../../src/types/run.js';

const CALLS: Array<{ name: string; call: ToolCall }> = [
  {
    name: 'run_runnable with id and nested args',
    call: { id: 'c1', name: 'run_runnable', arguments: { id: 'systemctl', host: 'web-1', args: { unit: 'nginx' } } },
  },
  { name: 'run_runnable with args as JSON text', call: { id: 'c2', name: 'run_runnable', arguments: { id: 'systemctl', args: '{"unit":"nginx"}' } } },
  { name: 'run_runnable naming the runnable under "runnable"', call: { id: 'c3', name: 'run_runnable', arguments: { runnable: 'systemctl', unit: 'nginx' } } },
  { name: 'use_tool with name', call: { id: 'c4', name: 'use_tool', arguments: { name: 'systemctl', args: { unit: 'nginx' } } } },
];

describe('search-layout run calls', () => {
  it.each(CALLS)('$name: the same runnable and arguments with and without a toolset', async ({ call }) => {
    const fleet = await loadToolset('builtin:fleet', { projectDir: '.', env: {} });
    const withToolset = resolveCall(call, { toolset: fleet, toolMode: 'search', commandIsVerb: false });
    const without = resolveWithoutToolset(call, { toolMode: 'search', commandIsVerb: false });
    expect(without.runnable).toBe('systemctl');
    expect(withToolset.runnable).toBe(without.runnable);
    expect(withToolset.args).toEqual(without.args);
    expect(without.args).toMatchObject({ unit: 'nginx' });
  });
});
