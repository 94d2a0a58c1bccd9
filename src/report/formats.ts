/** Report formats of a results document (`--output`). Light on purpose: the CLI lists them at start-up. */
export const OUTPUT_FORMATS = ['table', 'json', 'junit', 'md', 'html'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];
