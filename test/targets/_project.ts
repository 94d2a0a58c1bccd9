// A temp project for target tests: a case file run against every target kind, and the fake model's script.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { FakeAnswer } from '../helpers/fake-openai.js';

export const AGENTS = fileURLToPath(new URL('./agents/', import.meta.url));

/** Two cases: the first passes (the model picks get_weather for Paris), the second fails (it picks get_weather, get_time was expected). */
export const CASES_TOML = `
[[eval]]
id = "weather-paris"
prompt = "What is the weather in {{vars.city}}?"
vars = { city = "Paris" }
expect_tool = "get_weather"
expect_args = { city = "Paris" }
tool_mocks.get_weather = "Sunny, 21 C"

[[eval]]
id = "time-tokyo"
prompt = "What time is it in Tokyo?"
expect_tool = "get_time"
tool_mocks.get_weather = "Rain"
`;

/** The fake model's answers by first user message: a tool call, then a final text. */
export const SCRIPT: Record<string, FakeAnswer[]> = {
  'What is the weather in Paris?': [
    { toolCalls: [{ id: 'call_1', name: 'get_weather', arguments: { city: 'Paris' } }], finishReason: 'tool_calls' },
    { text: 'Sunny in Paris.' },
  ],
  'What time is it in Tokyo?': [
    { toolCalls: [{ id: 'call_2', name: 'get_weather', arguments: { city: 'Tokyo' } }], finishReason: 'tool_calls' },
    { text: 'It rains in Tokyo.' },
  ],
};

/** A project directory with runspec.toml (`config` appended) and cases.toml. */
export function makeProject(config: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-targets-'));
  writeFileSync(join(dir, 'runspec.toml'), `[telemetry]\nenabled = false\n\n${config}`);
  writeFileSync(join(dir, 'cases.toml'), CASES_TOML);
  return dir;
}
