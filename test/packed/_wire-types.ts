// What the installed CLI sent to Phoenix and LangSmith, type-checked against the official packages: Phoenix's
// request body type from @arizeai/phoenix-client's generated OpenAPI types (`paths`, POST
// /v1/span_annotations), LangSmith's FeedbackCreate from `langsmith/schemas`. Each body becomes an object
// literal with `satisfies`, so a missing required field, a wrong type or a field the schema does not have
// fails the check. (The Phoenix client ships its OpenAPI schema as TypeScript types only, no JSON document.)
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../helpers/run-cli.js';

const PHOENIX_OPENAPI = join(REPO_ROOT, 'node_modules/@arizeai/phoenix-client/dist/src/__generated__/api/v1.d.ts');

/** Throws with tsc's output when a body does not type-check. */
export function typeCheckWireBodies(bodies: { phoenix: unknown[]; langsmith: unknown[] }): void {
  const dir = mkdtempSync(join(tmpdir(), 'runspec-wire-types-'));
  try {
    const lines = [
      `import type { paths } from ${JSON.stringify(PHOENIX_OPENAPI.replace(/\.d\.ts$/, '.js'))};`,
      "import type { FeedbackCreate } from 'langsmith/schemas';",
      "type PhoenixBody = paths['/v1/span_annotations']['post']['requestBody']['content']['application/json'];",
      // The LangSmith SDK posts a FeedbackCreate without the server-set times; the rest as the type says.
      // session_id is the body field the SDK's Client.createFeedback sends for its `sessionId` option (src/telemetry/langsmith.ts
      // checks our body against that parameter type); FeedbackCreate does not list it.
      "type LangSmithBody = Omit<FeedbackCreate, 'created_at' | 'modified_at' | 'id' | 'score' | 'value' | 'comment' | 'correction' | 'feedback_source'> & Partial<FeedbackCreate> & { session_id?: string };",
      ...bodies.phoenix.map((b, i) => `export const phoenix${i} = ${JSON.stringify(b)} satisfies PhoenixBody;`),
      ...bodies.langsmith.map((b, i) => `export const langsmith${i} = ${JSON.stringify(b)} satisfies LangSmithBody;`),
    ];
    writeFileSync(join(dir, 'bodies.mts'), `${lines.join('\n')}\n`);
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'es2022',
          lib: ['es2023', 'dom'],
          module: 'nodenext',
          moduleResolution: 'nodenext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
          typeRoots: [join(REPO_ROOT, 'node_modules/@types')],
          paths: { 'langsmith/schemas': [join(REPO_ROOT, 'node_modules/langsmith/dist/schemas.d.ts')] },
        },
        files: ['bodies.mts'],
      }),
    );
    const tsc = spawnSync(process.execPath, [join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', join(dir, 'tsconfig.json')], {
      encoding: 'utf8',
      timeout: 120_000,
    });
    if (tsc.status !== 0) throw new Error(`wire bodies do not type-check:\n${tsc.stdout}${tsc.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
