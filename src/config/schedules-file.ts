// Where schedules live, apart from their reader (schedules.ts, with zod, smol-toml and croner): `schedule --help`
// names the file without loading them.

/** The schedules file, at the project root. */
export const SCHEDULES_FILE = 'runspec_schedules.toml';
