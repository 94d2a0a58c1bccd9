// Not published (package.json "exports" leaves it out): one import for tests and bench/.
export type { ChatKey, ChatRequest, ChatResponse, HttpProviderOptions, Provider, ReasoningEffort, RetryInfo } from './types.js';
export { createOpenAIProvider, OPENAI_DEFAULT_BASE_URL } from './openai.js';
export { createAnthropicProvider, ANTHROPIC_DEFAULT_BASE_URL } from './anthropic.js';
export { createMockProvider, loadMockScript, MockScriptSchema } from './mock.js';
export type { MockScript, MockTurn } from './mock.js';
export { createRecordingProvider, createReplayProvider, loadRecording, RECORDING_FORMAT } from './recording.js';
export type { RecordedResponse, RecordingEntry, RecordingFile, RecordingProvider } from './recording.js';
export { requestHash } from './_canonical.js';
export { canonicalJson } from '../core/canonical-json.js';
export { toOpenAITools, toAnthropicTools } from './tools-wire.js';
export type { OpenAITool, AnthropicTool } from './tools-wire.js';
