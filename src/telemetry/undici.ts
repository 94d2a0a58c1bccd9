// undici's Agent and request API as an ES module, for the callers that load them on first use (Phoenix
// annotations, LangSmith feedback, doctor: `await import('../telemetry/undici.js')`). A dynamic import()
// of undici itself, a CommonJS package, gave the bundled CLI a chunk ending `export default
// require_undici()` (esbuild with splitting), whose namespace has no named exports: `Agent` was undefined
// ("UndiciAgent is not a constructor") while every test of the sources passed. A static import inside an ES
// module is converted with its named exports; test/e2e/packaging.test.ts guards the bundle.
export { Agent, request } from 'undici';
