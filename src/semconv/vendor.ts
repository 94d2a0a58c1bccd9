// Hand-written attribute keys and values that no installed package exports. Kept apart from the
// generated attributes.ts; scripts/semconv-gen.mjs re-exports every `export const` here from index.ts.

/**
 * LangSmith run type of a span (`llm`, `chain`, `tool`, ...).
 * Source: docs.langchain.com/langsmith/trace-with-opentelemetry (attribute mapping table).
 */
export const ATTR_LANGSMITH_SPAN_KIND = 'langsmith.span.kind' as const;
export const LANGSMITH_SPAN_KIND_VALUE_CHAIN = 'chain' as const;
export const LANGSMITH_SPAN_KIND_VALUE_LLM = 'llm' as const;
export const LANGSMITH_SPAN_KIND_VALUE_TOOL = 'tool' as const;

/** `gen_ai.tool.type` value for client-executed functions (semantic-conventions v1.41.0 registry). */
export const GEN_AI_TOOL_TYPE_VALUE_FUNCTION = 'function' as const;

/** Span annotation name under which verdicts are posted to Phoenix (never `note`, which is reserved). */
export const RUNSPEC_EVALUATION_NAME = 'runspec.tool_selection' as const;

/** Annotation name of trajectory (replio / turnstone) verdicts, apart from tool selection so Phoenix does not average them. */
export const RUNSPEC_TRAJECTORY_EVALUATION_NAME = 'runspec.trajectory' as const;

/** Annotation names of offline rules: this prefix plus the rule's name (`runspec.rule.no-restarts`). */
export const RUNSPEC_RULE_EVALUATION_PREFIX = 'runspec.rule.' as const;
