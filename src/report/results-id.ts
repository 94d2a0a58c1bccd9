// The results document's schema id, apart from the zod schema (results-schema.ts): a run writes it into every
// results file, and building the schema is start-up time a run does not otherwise need.

/** Marks a document written by this module (turnstone readers ignore it). */
export const RESULTS_SCHEMA = 'runspec-eval.results/v1';
