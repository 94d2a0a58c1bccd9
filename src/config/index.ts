// Not published (package.json "exports" leaves it out): one import for tests and bench/.
export { readEnv } from './env.js';
export type { Env, EnvSource } from './env.js';
export { firstSet } from './setting.js';
export type { Setting, Source } from './setting.js';
export { resolveRunSettings, toolsetSetting, toolsetSpecOf, DEFAULT_ATTEMPTS } from './settings.js';
export type { RunSettings, SettingFlags } from './settings.js';
export { loadConfigFile, ConfigFileSchema, ProviderProfileSchema } from './file.js';
export type { ConfigFile, ProviderProfile } from './file.js';
export { PROVIDER_PRESETS, resolveProviderSpec } from './providers.js';
export type { ProviderKind, ProviderPreset, ProviderSpec, ProviderFlags } from './providers.js';
export { resolveTelemetryConfig, phoenixBase } from './telemetry.js';
export type { TelemetryConfig, TelemetryExporterConfig, TelemetryFlags, OtlpProtocol, OtlpCompression } from './telemetry.js';
export { loadSchedules, nextFire, dueSchedules, saveSchedule, SCHEDULES_FILE } from './schedules.js';
export type { ScheduleEntry } from './schedules.js';
