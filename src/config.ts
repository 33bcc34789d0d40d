import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';

// Every setting is an environment variable. Numbers and booleans arrive as strings; each is parsed
// and checked here so a bad value stops the start with one line naming the variable.

const PositiveInt = (def: number, description: string) => ({ def, description, kind: 'int' as const });

const intSettings = {
  PORT: { ...PositiveInt(3000, 'TCP port to listen on'), min: 0, max: 65535 },
  BODY_LIMIT: { ...PositiveInt(1024 * 1024, 'largest accepted request body, in bytes'), min: 1024, max: 64 * 1024 * 1024 },
  SESSION_DAYS: { ...PositiveInt(30, 'session lifetime in days (sliding)'), min: 1, max: 365 },
  LOGIN_MAX_FAILURES_PER_ACCOUNT: { ...PositiveInt(10, 'failed logins per account per window'), min: 1, max: 1_000_000 },
  LOGIN_MAX_FAILURES_PER_IP: { ...PositiveInt(100, 'failed logins per IP per window'), min: 1, max: 1_000_000 },
  LOGIN_WINDOW_MINUTES: { ...PositiveInt(15, 'window of the login limits, in minutes'), min: 1, max: 10_080 },
  REGISTER_MAX_PER_IP_PER_HOUR: { ...PositiveInt(30, 'registrations per IP per hour'), min: 1, max: 1_000_000 },
  TOKENS_MAX_PER_USER_PER_HOUR: { ...PositiveInt(30, 'new API tokens per user per hour'), min: 1, max: 1_000_000 },
  INVITATIONS_MAX_PER_USER_PER_HOUR: { ...PositiveInt(30, 'new invitations per user per hour'), min: 1, max: 1_000_000 },
  CHANGES_RETENTION_DAYS: { ...PositiveInt(90, 'days a deletion stays in the changes feed'), min: 1, max: 36_500 },
  TRASH_RETENTION_DAYS: { ...PositiveInt(30, 'days a deleted record or campaign stays in the trash before it is erased'), min: 1, max: 36_500 },
  INVITATION_MAX_FAILURES_PER_IP: { ...PositiveInt(20, 'failed invitation accepts per IP per 15 minutes (against token guessing)'), min: 1, max: 1_000_000 },
  REQUEST_TIMEOUT_MS: { ...PositiveInt(30_000, 'longest time a request may take, in milliseconds'), min: 1000, max: 600_000 },
  DATABASE_POOL_SIZE: { ...PositiveInt(10, 'PostgreSQL connections per instance'), min: 1, max: 500 },
  RESPONSE_CACHE_MB: { ...PositiveInt(32, 'memory for cached GET responses, in MiB (0 turns the cache off)'), min: 0, max: 4096 },
  IMPORTS_MAX_PER_USER_PER_HOUR: { ...PositiveInt(20, 'campaign imports per user per hour'), min: 1, max: 1_000_000 },
  IMPORT_MAX_BYTES: { ...PositiveInt(200 * 1024 * 1024, 'largest file POST /api/campaigns/import accepts, in bytes'), min: 1024, max: 64 * 1024 * 1024 * 1024 },
  IMPORT_MAX_EXPANDED_BYTES: { ...PositiveInt(2 * 1024 * 1024 * 1024, 'uncompressed bytes one import may read from its file in all, in bytes'), min: 1024, max: 1024 * 1024 * 1024 * 1024 },
  IMPORTS_MAX_CONCURRENT: { ...PositiveInt(2, 'imports running at once on one instance'), min: 1, max: 1000 },
  IMPORT_JOB_STALE_MS: { ...PositiveInt(30_000, 'an import job whose instance has not touched it for this many milliseconds is failed (its instance died)'), min: 1000, max: 3_600_000 },
  SEARCH_INDEX_DELAY_MS: { ...PositiveInt(250, 'milliseconds after a write before its records are re-indexed for search, in the background (0: only when a search of their campaign asks); a search always sees every write committed before it'), min: 0, max: 1000 },
  REVISION_MERGE_SECONDS: { ...PositiveInt(300, 'changes by one author within this many seconds of their latest unnamed revision update it instead of adding one'), min: 0, max: 86_400 },
  MAX_UPLOAD_BYTES: { ...PositiveInt(10 * 1024 * 1024, 'largest accepted image upload, in bytes'), min: 1024, max: 1024 * 1024 * 1024 },
} as const;

export const S3ConfigSchema = Type.Object({
  endpoint: Type.Optional(Type.String()),
  bucket: Type.String(),
  region: Type.String(),
  accessKeyId: Type.Optional(Type.String()),
  secretAccessKey: Type.Optional(Type.String()),
  forcePathStyle: Type.Boolean(),
  publicBaseUrl: Type.String(),
});
export type S3Config = Static<typeof S3ConfigSchema>;

export const ConfigSchema = Type.Object({
  port: Type.Integer(),
  host: Type.String(),
  dataDir: Type.String(),
  databaseUrl: Type.Optional(Type.String()),
  publicBaseUrl: Type.String(),
  imageHost: Type.Union([Type.Literal('local'), Type.Literal('s3')]),
  cookieSecure: Type.Boolean(),
  logLevel: Type.Union(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].map((l) => Type.Literal(l))),
  trustProxy: Type.Boolean(),
  bodyLimit: Type.Integer(),
  sessionDays: Type.Integer(),
  loginMaxFailuresPerAccount: Type.Integer(),
  loginMaxFailuresPerIp: Type.Integer(),
  loginWindowMinutes: Type.Integer(),
  registerMaxPerIpPerHour: Type.Integer(),
  tokensMaxPerUserPerHour: Type.Integer(),
  invitationsMaxPerUserPerHour: Type.Integer(),
  invitationMaxFailuresPerIp: Type.Integer(),
  changesRetentionDays: Type.Integer(),
  trashRetentionDays: Type.Integer(),
  apiRateLimit: Type.Optional(Type.Integer()),
  requestTimeoutMs: Type.Integer(),
  databasePoolSize: Type.Integer(),
  responseCacheMb: Type.Integer(),
  maxUploadBytes: Type.Integer(),
  importMaxBytes: Type.Integer(),
  importsMaxPerUserPerHour: Type.Integer(),
  /** EVERYONE_PREMIUM: every account is premium (a self-hosted server without subscriptions). */
  everyonePremium: Type.Boolean(),
  importMaxExpandedBytes: Type.Integer(),
  importsMaxConcurrent: Type.Integer(),
  importJobStaleMs: Type.Integer(),
  revisionMergeSeconds: Type.Integer(),
  searchIndexDelayMs: Type.Integer(),
  /** The built web app's folder (WEB_ROOT); unset: dist/web next to the server. */
  webRoot: Type.Optional(Type.String()),
  /** Present when imageHost is 's3'. */
  s3: Type.Optional(S3ConfigSchema),
});
export type Config = Static<typeof ConfigSchema>;

export class ConfigError extends Error {}

type Env = Record<string, string | undefined>;

function readInt(env: Env, name: keyof typeof intSettings): number {
  const setting = intSettings[name];
  const raw = env[name];
  if (raw === undefined || raw === '') return setting.def;
  if (!/^\d+$/.test(raw.trim())) throw new ConfigError(`${name} must be a whole number (${setting.description}), got "${raw}"`);
  const value = Number(raw.trim());
  if (value < setting.min || value > setting.max) {
    throw new ConfigError(`${name} must be between ${setting.min} and ${setting.max} (${setting.description}), got ${value}`);
  }
  return value;
}

function readBool(env: Env, name: string, def: boolean): boolean {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = raw.trim().toLowerCase();
  if (v === 'true' || v === '1' || v === 'yes') return true;
  if (v === 'false' || v === '0' || v === 'no') return false;
  throw new ConfigError(`${name} must be true or false, got "${raw}"`);
}

function readChoice<T extends string>(env: Env, name: string, choices: readonly T[], def: T): T {
  const raw = env[name];
  if (raw === undefined || raw === '') return def;
  const v = raw.trim().toLowerCase();
  if (!(choices as readonly string[]).includes(v)) throw new ConfigError(`${name} must be one of ${choices.join(', ')}, got "${raw}"`);
  return v as T;
}

function readUrl(env: Env, name: string, protocols: string[]): string | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must be a URL, got "${raw}"`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new ConfigError(`${name} must start with ${protocols.map((p) => `${p}//`).join(' or ')}`);
  }
  return raw;
}

// S3 bucket names: 3 to 63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit.
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

function readS3(env: Env): S3Config {
  const bucket = env.S3_BUCKET?.trim() ?? '';
  if (bucket === '') throw new ConfigError('S3_BUCKET must be set when IMAGE_HOST=s3');
  if (!BUCKET_NAME.test(bucket)) {
    throw new ConfigError(`S3_BUCKET must be a bucket name (3 to 63 lowercase letters, digits, dots and hyphens), got "${bucket}"`);
  }
  const region = env.S3_REGION?.trim() || 'us-east-1';
  if (!/^[a-z0-9-]{1,64}$/.test(region)) throw new ConfigError(`S3_REGION must be a region name such as us-east-1, got "${region}"`);
  const endpoint = readUrl(env, 'S3_ENDPOINT', ['http:', 'https:'])?.replace(/\/+$/, '');
  const accessKeyId = env.S3_ACCESS_KEY_ID?.trim() || undefined;
  const secretAccessKey = env.S3_SECRET_ACCESS_KEY?.trim() || undefined;
  if ((accessKeyId === undefined) !== (secretAccessKey === undefined)) {
    throw new ConfigError('S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY must be set together (or both unset to use the AWS default credentials)');
  }
  const forcePathStyle = readBool(env, 'S3_FORCE_PATH_STYLE', false);
  // By default images are read from the bucket's own address, as the SDK addresses it.
  let defaultPublic = `https://${bucket}.s3.${region}.amazonaws.com`;
  if (endpoint !== undefined) {
    const url = new URL(endpoint);
    defaultPublic = forcePathStyle ? `${endpoint}/${bucket}` : `${url.protocol}//${bucket}.${url.host}${url.pathname.replace(/\/+$/, '')}`;
  }
  const publicBaseUrl = (readUrl(env, 'S3_PUBLIC_BASE_URL', ['http:', 'https:']) ?? defaultPublic).replace(/\/+$/, '');
  return { endpoint, bucket, region, accessKeyId, secretAccessKey, forcePathStyle, publicBaseUrl };
}

/** Reads and validates the configuration; throws ConfigError with a one-line message on the first bad value. */
export function loadConfig(env: Env = process.env): Config {
  const port = readInt(env, 'PORT');
  const host = env.HOST?.trim() || '127.0.0.1';
  const publicBaseUrl = (readUrl(env, 'PUBLIC_BASE_URL', ['http:', 'https:']) ?? `http://${host.includes(':') ? `[${host}]` : host}:${port}`).replace(/\/+$/, '');
  const apiRateLimitRaw = env.API_RATE_LIMIT;
  let apiRateLimit: number | undefined;
  if (apiRateLimitRaw !== undefined && apiRateLimitRaw !== '') {
    if (!/^\d+$/.test(apiRateLimitRaw.trim()) || Number(apiRateLimitRaw) < 1) {
      throw new ConfigError(`API_RATE_LIMIT must be a positive whole number of requests per minute, got "${apiRateLimitRaw}"`);
    }
    apiRateLimit = Number(apiRateLimitRaw);
  }
  const config: Config = {
    port,
    host,
    dataDir: env.DATA_DIR?.trim() || './data',
    databaseUrl: readUrl(env, 'DATABASE_URL', ['postgres:', 'postgresql:']),
    publicBaseUrl,
    imageHost: readChoice(env, 'IMAGE_HOST', ['local', 's3'] as const, 'local'),
    cookieSecure: readBool(env, 'COOKIE_SECURE', false),
    logLevel: readChoice(env, 'LOG_LEVEL', ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const, 'info'),
    trustProxy: readBool(env, 'TRUST_PROXY', false),
    bodyLimit: readInt(env, 'BODY_LIMIT'),
    sessionDays: readInt(env, 'SESSION_DAYS'),
    loginMaxFailuresPerAccount: readInt(env, 'LOGIN_MAX_FAILURES_PER_ACCOUNT'),
    loginMaxFailuresPerIp: readInt(env, 'LOGIN_MAX_FAILURES_PER_IP'),
    loginWindowMinutes: readInt(env, 'LOGIN_WINDOW_MINUTES'),
    registerMaxPerIpPerHour: readInt(env, 'REGISTER_MAX_PER_IP_PER_HOUR'),
    tokensMaxPerUserPerHour: readInt(env, 'TOKENS_MAX_PER_USER_PER_HOUR'),
    invitationsMaxPerUserPerHour: readInt(env, 'INVITATIONS_MAX_PER_USER_PER_HOUR'),
    invitationMaxFailuresPerIp: readInt(env, 'INVITATION_MAX_FAILURES_PER_IP'),
    changesRetentionDays: readInt(env, 'CHANGES_RETENTION_DAYS'),
    trashRetentionDays: readInt(env, 'TRASH_RETENTION_DAYS'),
    apiRateLimit,
    requestTimeoutMs: readInt(env, 'REQUEST_TIMEOUT_MS'),
    databasePoolSize: readInt(env, 'DATABASE_POOL_SIZE'),
    responseCacheMb: readInt(env, 'RESPONSE_CACHE_MB'),
    maxUploadBytes: readInt(env, 'MAX_UPLOAD_BYTES'),
    importMaxBytes: readInt(env, 'IMPORT_MAX_BYTES'),
    importsMaxPerUserPerHour: readInt(env, 'IMPORTS_MAX_PER_USER_PER_HOUR'),
    everyonePremium: readBool(env, 'EVERYONE_PREMIUM', false),
    importMaxExpandedBytes: readInt(env, 'IMPORT_MAX_EXPANDED_BYTES'),
    importsMaxConcurrent: readInt(env, 'IMPORTS_MAX_CONCURRENT'),
    importJobStaleMs: readInt(env, 'IMPORT_JOB_STALE_MS'),
    revisionMergeSeconds: readInt(env, 'REVISION_MERGE_SECONDS'),
    searchIndexDelayMs: readInt(env, 'SEARCH_INDEX_DELAY_MS'),
    webRoot: env.WEB_ROOT?.trim() || undefined,
  };
  if (config.imageHost === 's3') config.s3 = readS3(env);
  if (!Value.Check(ConfigSchema, config)) throw new ConfigError('configuration failed its own schema check');
  return config;
}
