import path from 'node:path';
import { parseStorageSettings, type StorageSettings } from './storage/storage-settings.ts';
import { parseAddressRange } from './webhooks/address-guard.ts';
import { ConfigError } from './config-error.ts';

/** Everything the service reads from its environment, validated once at start-up. */
export interface Config {
  /** TCP port the API listens on. */
  port: number;
  /** Interface the API binds to. */
  host: string;
  /** Folder for the embedded database, stored files and the generated token. */
  dataDir: string;
  /** `sqlite:<path>` or `postgres://…`. */
  databaseUrl: string;
  /** `redis://` or `rediss://`: jobs go through BullMQ on this Redis and events wake the API processes through its pub/sub; unset, the embedded queue. */
  redisUrl: string | undefined;
  /** First part of every Redis key, so several installations can share one Redis. */
  redisPrefix: string;
  /** `file:<path>` or `s3://bucket/prefix`: where stored files live, as given. */
  storageUrl: string;
  /** The store `storageUrl` and the `S3_*` variables describe, parsed and checked. */
  storage: StorageSettings;
  /** Base of every URL the API hands out; derived from the request when unset. */
  publicBaseUrl: string | undefined;
  /** The `X-API-Token` value; generated and kept in `<dataDir>/api-token` when unset. */
  apiToken: string | undefined;
  /** Key of the signatures on handed-out `/files/` URLs; derived from the admin token when unset. */
  fileUrlSecret: string | undefined;
  /** Life of a signed `/files/` URL: the API hands out URLs valid between half of it and all of it. */
  fileUrlExpiresMs: number;
  /** Largest accepted model upload in bytes, sent in one request or resumably. */
  maxUploadBytes: number;
  /** A resumable upload untouched this long (unfinished, or finished but never made a model) is removed. */
  uploadExpiryMs: number;
  /** How long a multipart upload's `Idempotency-Key` answers the model it made instead of letting a second be made. */
  idempotencyWindowMs: number;
  /** Wall-clock limit of one conversion. */
  conversionTimeoutMs: number;
  /** How many times CONVERSION_TIMEOUT_SECONDS a conversion may take on the wall clock. */
  conversionWallCeilingFactor: number;
  /** Heap limit of each conversion thread, and the heap plus WebAssembly memory one conversion may reach, in MiB. */
  conversionMaxMemoryMb: number;
  /** Silence after which a conversion that reports no progress fails (a wedged importer). */
  conversionStallMs: number;
  /** Most triangles a model may have; a bigger one fails with a message naming the limit. */
  conversionMaxTriangles: number;
  /** Models with more triangles also get a 3D Tiles tileset, streamed by the viewer; 0: every model. */
  tilesAboveTriangles: number;
  /** Jobs a conversion thread runs before it is replaced by a fresh one. */
  conversionThreadMaxJobs: number;
  /** Size of an input above which its conversion runs in a process of its own instead of a warm thread, in MiB. */
  conversionProcessAboveMb: number;
  /** Jobs one worker process runs at the same time. */
  jobConcurrency: number;
  /** How long a job stays with a worker that stopped heartbeating (a killed process) before another takes it. */
  jobLeaseMs: number;
  /** Time between two sweeps for models left converting without a job, which also must be untouched this long. */
  strandedSweepMs: number;
  /** Geometry compression of every level: meshopt (lossless on LOD 0, quantized on LOD 1 and 2) or none. */
  glbCompression: 'none' | 'meshopt';
  /** Textures per level: resized (4096, 1024, 512 px) and WebP-encoded, or kept as they came. */
  lodTextures: 'webp' | 'source';
  /** pino log level. */
  logLevel: string;
  /** MiB of bulk lookup replies each API process keeps for repeated requests; 0 keeps none. */
  lookupCacheMb: number;
  /** Time a client has to send a request's headers. */
  headersTimeoutMs: number;
  /** Time a client has to send a JSON body, and to send each 64 KiB of an upload. */
  bodyTimeoutMs: number;
  /** A connection on which nothing moves for this long is closed. */
  idleTimeoutMs: number;
  /** How often an open event stream's token is checked again, so a revoked or expired token's streams end. */
  eventStreamTokenCheckMs: number;
  /** Opening a database connection (SQLite: waiting for the write lock) before answering 503. */
  connectTimeoutMs: number;
  /** One database statement before it is cancelled and the request answered 503. */
  statementTimeoutMs: number;
  /** Folder holding the built web viewer. */
  webDistDir: string;
  /** Origins whose pages may call `/api/` (CORS); `*` for any, empty for none. */
  corsOrigins: string[];
  /** Refuse webhook receivers at private, loopback, link-local and similar addresses (the default). */
  webhookRefusePrivateAddresses: boolean;
  /** Addresses or CIDR ranges webhooks may reach although they are private. */
  webhookAllowedPrivateRanges: string[];
  /** How long a webhook receiver has to answer one attempt. */
  webhookTimeoutMs: number;
  /** Webhook deliveries one worker process runs at once, beside (never in place of) its conversions. */
  webhookConcurrency: number;
  /** Of those, how many may go to one receiver (scheme, host and port) at once. */
  webhookReceiverConcurrency: number;
  /** Newest deliveries kept in each webhook's delivery log. */
  webhookDeliveryLogKeep: number;
  /** Settled deliveries older than this leave the delivery log. */
  webhookDeliveryLogMaxAgeMs: number;
  /**
   * How long after a material binding change the affected models' thumbnails are rendered again; the changes
   * within that window share one render per model.
   */
  thumbnailRefreshDelayMs: number;
}

const GIB = 1024 ** 3;
const HOUR_MS = 60 * 60 * 1000;
const DAY_MS = 24 * HOUR_MS;
const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

/** Reads and validates the configuration from an environment (defaults as README.md's "Configuration" lists them). */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const problems: string[] = [];
  const int = (name: string, fallback: number, min: number, max: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      problems.push(`${name} must be an integer between ${min} and ${max} (got "${raw}")`);
      return fallback;
    }
    return value;
  };
  const text = (name: string): string | undefined => {
    const raw = env[name]?.trim();
    return raw ? raw : undefined;
  };

  const dataDir = path.resolve(text('DATA_DIR') ?? './data');
  const databaseUrl = text('DATABASE_URL') ?? `sqlite:${path.join(dataDir, 'vitrine.db')}`;
  if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(databaseUrl)) {
    problems.push('DATABASE_URL must start with sqlite: or postgres://');
  }
  const storageUrl = text('STORAGE_URL') ?? `file:${path.join(dataDir, 'files')}`;
  const storage = parseStorageSettings(storageUrl, env, problems);
  const redisUrl = text('REDIS_URL');
  if (redisUrl && !isRedisUrl(redisUrl)) {
    problems.push('REDIS_URL must be a redis:// or rediss:// URL, e.g. redis://127.0.0.1:6379');
  }
  const redisPrefix = text('REDIS_PREFIX') ?? 'vitrine';
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(redisPrefix)) {
    problems.push('REDIS_PREFIX must be 1 to 64 letters, digits, dots, dashes or underscores');
  }
  const bool = (name: string, fallback: boolean): boolean => {
    const raw = text(name)?.toLowerCase();
    if (raw === undefined) return fallback;
    if (['true', '1', 'yes'].includes(raw)) return true;
    if (['false', '0', 'no'].includes(raw)) return false;
    problems.push(`${name} must be true or false (got "${env[name]}")`);
    return fallback;
  };
  const corsOrigins = (text('CORS_ORIGINS') ?? '')
    .split(',')
    .map((origin) => origin.trim().replace(/\/+$/, ''))
    .filter((origin) => origin !== '');
  for (const origin of corsOrigins) {
    if (origin !== '*' && !/^https?:\/\/[^/?#\s]+$/.test(origin)) {
      problems.push(`CORS_ORIGINS must list origins like https://viewer.example.com or * (got "${origin}")`);
    }
  }
  const publicBaseUrl = text('PUBLIC_BASE_URL')?.replace(/\/+$/, '');
  if (publicBaseUrl && !/^https?:\/\/[^/]/.test(publicBaseUrl)) {
    problems.push('PUBLIC_BASE_URL must be an http:// or https:// URL');
  }
  const apiToken = text('API_TOKEN');
  if (apiToken !== undefined && apiToken.length < 8) problems.push('API_TOKEN must be at least 8 characters');
  const fileUrlSecret = text('FILE_URL_SECRET');
  if (fileUrlSecret !== undefined && fileUrlSecret.length < 32) {
    problems.push('FILE_URL_SECRET must be at least 32 characters');
  }
  const glbCompression = text('GLB_COMPRESSION') ?? 'meshopt';
  if (glbCompression === 'draco') {
    // Refused at start rather than accepted: without a Draco encoder installed it could only fail every conversion.
    problems.push(
      'GLB_COMPRESSION=draco: Draco compression is not available in this build because no Draco encoder is installed; use meshopt',
    );
  } else if (glbCompression !== 'none' && glbCompression !== 'meshopt') {
    problems.push(`GLB_COMPRESSION must be none or meshopt (got "${glbCompression}")`);
  }
  const lodTextures = text('LOD_TEXTURES') ?? 'webp';
  if (lodTextures !== 'webp' && lodTextures !== 'source') {
    problems.push(`LOD_TEXTURES must be webp or source (got "${lodTextures}")`);
  }
  const webhookAllowedPrivateRanges = (text('WEBHOOK_ALLOWED_PRIVATE_RANGES') ?? '')
    .split(',')
    .map((range) => range.trim())
    .filter((range) => range !== '');
  for (const range of webhookAllowedPrivateRanges) {
    if (!parseAddressRange(range)) {
      problems.push(
        `WEBHOOK_ALLOWED_PRIVATE_RANGES must list IP addresses or CIDR ranges like 10.0.5.7 or fd00::/8 (got "${range}")`,
      );
    }
  }
  const logLevel = text('LOG_LEVEL') ?? 'info';
  if (!LOG_LEVELS.includes(logLevel)) problems.push(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);

  const config: Config = {
    port: int('PORT', 8080, 0, 65535),
    host: text('HOST') ?? '127.0.0.1',
    dataDir,
    databaseUrl,
    redisUrl,
    redisPrefix,
    storageUrl,
    storage,
    publicBaseUrl,
    apiToken,
    fileUrlSecret,
    fileUrlExpiresMs: int('FILE_URL_EXPIRES_SECONDS', 3600, 60, 604_800) * 1000,
    maxUploadBytes: int('MAX_UPLOAD_BYTES', GIB, 1, 64 * GIB),
    uploadExpiryMs: int('UPLOAD_EXPIRY_HOURS', 24, 1, 24 * 365) * HOUR_MS,
    idempotencyWindowMs: int('IDEMPOTENCY_KEY_HOURS', 24, 1, 24 * 365) * HOUR_MS,
    conversionTimeoutMs: int('CONVERSION_TIMEOUT_SECONDS', 600, 1, 86_400) * 1000,
    conversionWallCeilingFactor: int('CONVERSION_WALL_CEILING_FACTOR', 3, 1, 100),
    conversionMaxMemoryMb: int('CONVERSION_MAX_MEMORY_MB', 4096, 64, 65_536),
    conversionStallMs: int('CONVERSION_STALL_SECONDS', 15, 1, 3600) * 1000,
    conversionMaxTriangles: int('CONVERSION_MAX_TRIANGLES', 50_000_000, 1, 1_000_000_000),
    tilesAboveTriangles: int('TILES_ABOVE_TRIANGLES', 500_000, 0, 1_000_000_000),
    conversionThreadMaxJobs: int('CONVERSION_THREAD_MAX_JOBS', 100, 1, 1_000_000),
    conversionProcessAboveMb: int('CONVERSION_PROCESS_ABOVE_MB', 64, 0, 65_536),
    jobConcurrency: int('WORKER_CONCURRENCY', 1, 1, 64),
    jobLeaseMs: int('JOB_LEASE_SECONDS', 30, 1, 3600) * 1000,
    strandedSweepMs: int('STRANDED_MODEL_SWEEP_SECONDS', 60, 1, 86_400) * 1000,
    glbCompression: glbCompression === 'none' ? 'none' : 'meshopt',
    lodTextures: lodTextures === 'source' ? 'source' : 'webp',
    logLevel,
    lookupCacheMb: int('LOOKUP_CACHE_MB', 128, 0, 65_536),
    headersTimeoutMs: int('HTTP_HEADERS_TIMEOUT_SECONDS', 10, 1, 3600) * 1000,
    bodyTimeoutMs: int('HTTP_BODY_TIMEOUT_SECONDS', 30, 1, 3600) * 1000,
    idleTimeoutMs: int('HTTP_IDLE_TIMEOUT_SECONDS', 60, 1, 3600) * 1000,
    eventStreamTokenCheckMs: int('EVENT_STREAM_TOKEN_CHECK_SECONDS', 30, 1, 30) * 1000,
    connectTimeoutMs: int('DATABASE_CONNECT_TIMEOUT_SECONDS', 5, 1, 600) * 1000,
    statementTimeoutMs: int('DATABASE_STATEMENT_TIMEOUT_SECONDS', 30, 1, 86_400) * 1000,
    webDistDir: path.resolve(text('WEB_DIST_DIR') ?? path.join(import.meta.dirname, '..', 'web', 'dist')),
    corsOrigins,
    webhookRefusePrivateAddresses: bool('WEBHOOK_REFUSE_PRIVATE_ADDRESSES', true),
    webhookAllowedPrivateRanges,
    webhookTimeoutMs: int('WEBHOOK_TIMEOUT_SECONDS', 10, 1, 300) * 1000,
    webhookConcurrency: int('WEBHOOK_CONCURRENCY', 4, 1, 256),
    webhookReceiverConcurrency: int('WEBHOOK_RECEIVER_CONCURRENCY', 2, 1, 256),
    webhookDeliveryLogKeep: int('WEBHOOK_DELIVERY_LOG_KEEP', 1000, 1, 1_000_000),
    webhookDeliveryLogMaxAgeMs: int('WEBHOOK_DELIVERY_LOG_DAYS', 30, 1, 3650) * DAY_MS,
    thumbnailRefreshDelayMs: int('THUMBNAIL_REFRESH_DELAY_MS', 2000, 0, 600_000),
  };
  if (problems.length > 0) throw new ConfigError(`Invalid configuration: ${problems.join('; ')}`);
  return config;
}

/** True for a URL ioredis can open: `redis://` or `rediss://` (TLS) with a host. */
function isRedisUrl(value: string): boolean {
  try {
    const url = new URL(value);
    return (url.protocol === 'redis:' || url.protocol === 'rediss:') && url.hostname !== '';
  } catch {
    return false;
  }
}
