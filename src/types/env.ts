/** An environment as a plain object (`process.env`, or a test's own): variable name → value. */
export type EnvSource = Readonly<Record<string, string | undefined>>;
