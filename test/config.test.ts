import assert from 'node:assert/strict';
import path from 'node:path';
import { describe, it } from 'node:test';
import { ConfigError } from '../src/config-error.ts';
import { loadConfig } from '../src/config.ts';

const GIB = 1024 ** 3;

/** Asserts that loading throws a ConfigError whose message names the variable. */
function refuses(env: Record<string, string>, variable: string): void {
  assert.throws(
    () => loadConfig(env),
    (error: unknown) => {
      assert.ok(error instanceof ConfigError, `a ConfigError for ${variable}`);
      assert.match(error.message, new RegExp(`\\b${variable}\\b`));
      return true;
    },
  );
}

void describe('loadConfig', () => {
  void it('applies the documented defaults to an empty environment', () => {
    const config = loadConfig({});
    const dataDir = path.resolve('./data');
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, dataDir);
    assert.equal(config.databaseUrl, `sqlite:${path.join(dataDir, 'vitrine.db')}`);
    assert.equal(config.storageUrl, `file:${path.join(dataDir, 'files')}`);
    assert.equal(config.maxUploadBytes, GIB);
    assert.equal(config.uploadExpiryMs, 24 * 3_600_000);
    assert.equal(config.apiToken, undefined);
    assert.equal(config.fileUrlSecret, undefined);
    assert.equal(config.fileUrlExpiresMs, 3_600_000);
    assert.equal(config.publicBaseUrl, undefined);
    assert.equal(config.redisUrl, undefined);
    assert.equal(config.logLevel, 'info');
    assert.deepEqual(config.corsOrigins, []);
    assert.equal(config.webhookRefusePrivateAddresses, true);
    assert.deepEqual(config.webhookAllowedPrivateRanges, []);
    assert.equal(config.webhookTimeoutMs, 10_000);
    assert.equal(config.webhookConcurrency, 4);
    assert.equal(config.webhookReceiverConcurrency, 2);
    assert.equal(config.webhookDeliveryLogKeep, 1000);
    assert.equal(config.webhookDeliveryLogMaxAgeMs, 30 * 24 * 3_600_000);
  });

  void it('reads the event, webhook and CORS settings', () => {
    const config = loadConfig({
      REDIS_URL: 'redis://127.0.0.1:6379',
      CORS_ORIGINS: 'https://viewer.example.com, http://localhost:5173/',
      WEBHOOK_REFUSE_PRIVATE_ADDRESSES: 'false',
      WEBHOOK_ALLOWED_PRIVATE_RANGES: '10.0.5.7, fd00::/8,192.168.0.0/16',
      WEBHOOK_TIMEOUT_SECONDS: '3',
      WEBHOOK_CONCURRENCY: '16',
      WEBHOOK_RECEIVER_CONCURRENCY: '1',
      WEBHOOK_DELIVERY_LOG_KEEP: '50',
      WEBHOOK_DELIVERY_LOG_DAYS: '7',
    });
    assert.equal(config.redisUrl, 'redis://127.0.0.1:6379');
    assert.deepEqual(config.corsOrigins, ['https://viewer.example.com', 'http://localhost:5173']);
    assert.equal(config.webhookRefusePrivateAddresses, false);
    assert.deepEqual(config.webhookAllowedPrivateRanges, ['10.0.5.7', 'fd00::/8', '192.168.0.0/16']);
    assert.equal(config.webhookTimeoutMs, 3_000);
    assert.equal(config.webhookConcurrency, 16);
    assert.equal(config.webhookReceiverConcurrency, 1);
    assert.equal(config.webhookDeliveryLogKeep, 50);
    assert.equal(config.webhookDeliveryLogMaxAgeMs, 7 * 24 * 3_600_000);
  });

  void it('treats empty and blank values as unset', () => {
    const config = loadConfig({ PORT: '', HOST: '  ', DATA_DIR: '', API_TOKEN: ' ', MAX_UPLOAD_BYTES: '' });
    assert.equal(config.port, 8080);
    assert.equal(config.host, '127.0.0.1');
    assert.equal(config.dataDir, path.resolve('./data'));
    assert.equal(config.apiToken, undefined);
    assert.equal(config.maxUploadBytes, GIB);
  });

  void it('places the database and files under DATA_DIR, resolved to an absolute path', () => {
    const config = loadConfig({ DATA_DIR: 'some/where' });
    const dataDir = path.resolve('some/where');
    assert.equal(config.dataDir, dataDir);
    assert.equal(config.databaseUrl, `sqlite:${path.join(dataDir, 'vitrine.db')}`);
    assert.equal(config.storageUrl, `file:${path.join(dataDir, 'files')}`);
  });

  void it('reads every setting it is given', () => {
    const config = loadConfig({
      PORT: '0',
      HOST: '0.0.0.0',
      DATABASE_URL: 'postgres://user@db:5432/vitrine',
      PUBLIC_BASE_URL: 'https://models.example.com/',
      API_TOKEN: 'a-long-enough-token',
      MAX_UPLOAD_BYTES: '1048576',
      UPLOAD_EXPIRY_HOURS: '2',
      LOG_LEVEL: 'warn',
      FILE_URL_SECRET: 'k'.repeat(32),
      FILE_URL_EXPIRES_SECONDS: '120',
    });
    assert.equal(config.fileUrlSecret, 'k'.repeat(32));
    assert.equal(config.fileUrlExpiresMs, 120_000);
    assert.equal(config.port, 0);
    assert.equal(config.host, '0.0.0.0');
    assert.equal(config.databaseUrl, 'postgres://user@db:5432/vitrine');
    assert.equal(config.publicBaseUrl, 'https://models.example.com', 'the trailing slash is dropped');
    assert.equal(config.apiToken, 'a-long-enough-token');
    assert.equal(config.maxUploadBytes, 1_048_576);
    assert.equal(config.uploadExpiryMs, 2 * 3_600_000);
    assert.equal(config.logLevel, 'warn');
    assert.equal(loadConfig({ DATABASE_URL: 'postgresql://db/v' }).databaseUrl, 'postgresql://db/v');
  });

  void it('throws naming the variable for each unusable value', () => {
    for (const port of ['abc', '-1', '65536', '80.5', '1e9']) refuses({ PORT: port }, 'PORT');
    for (const size of ['0', '-5', 'lots', '1.5']) refuses({ MAX_UPLOAD_BYTES: size }, 'MAX_UPLOAD_BYTES');
    for (const hours of ['0', '1.5', 'never']) refuses({ UPLOAD_EXPIRY_HOURS: hours }, 'UPLOAD_EXPIRY_HOURS');
    refuses({ DATABASE_URL: 'mysql://db/vitrine' }, 'DATABASE_URL');
    refuses({ DATABASE_URL: '/var/lib/vitrine.db' }, 'DATABASE_URL');
    refuses({ API_TOKEN: 'short' }, 'API_TOKEN');
    refuses({ FILE_URL_SECRET: 'too-short' }, 'FILE_URL_SECRET');
    for (const seconds of ['59', '604801', 'soon'])
      refuses({ FILE_URL_EXPIRES_SECONDS: seconds }, 'FILE_URL_EXPIRES_SECONDS');
    refuses({ LOG_LEVEL: 'loud' }, 'LOG_LEVEL');
    refuses({ PUBLIC_BASE_URL: 'ftp://files.example.com' }, 'PUBLIC_BASE_URL');
    refuses({ PUBLIC_BASE_URL: 'example.com' }, 'PUBLIC_BASE_URL');
    refuses({ STORAGE_URL: 'ftp://bucket/prefix' }, 'STORAGE_URL');
    refuses({ REDIS_URL: 'localhost:6379' }, 'REDIS_URL');
    refuses({ REDIS_URL: 'http://localhost:6379' }, 'REDIS_URL');
    refuses({ REDIS_PREFIX: 'has space' }, 'REDIS_PREFIX');
    refuses({ CORS_ORIGINS: 'https://viewer.example.com/app' }, 'CORS_ORIGINS');
    refuses({ CORS_ORIGINS: 'viewer.example.com' }, 'CORS_ORIGINS');
    refuses({ WEBHOOK_REFUSE_PRIVATE_ADDRESSES: 'maybe' }, 'WEBHOOK_REFUSE_PRIVATE_ADDRESSES');
    refuses({ WEBHOOK_TIMEOUT_SECONDS: '0' }, 'WEBHOOK_TIMEOUT_SECONDS');
    refuses({ WEBHOOK_ALLOWED_PRIVATE_RANGES: '10.0.0.0/33' }, 'WEBHOOK_ALLOWED_PRIVATE_RANGES');
    refuses({ WEBHOOK_ALLOWED_PRIVATE_RANGES: 'intranet.local' }, 'WEBHOOK_ALLOWED_PRIVATE_RANGES');
    refuses({ WEBHOOK_CONCURRENCY: '0' }, 'WEBHOOK_CONCURRENCY');
    refuses({ WEBHOOK_RECEIVER_CONCURRENCY: 'many' }, 'WEBHOOK_RECEIVER_CONCURRENCY');
    refuses({ WEBHOOK_DELIVERY_LOG_KEEP: '0' }, 'WEBHOOK_DELIVERY_LOG_KEEP');
    refuses({ WEBHOOK_DELIVERY_LOG_DAYS: '-1' }, 'WEBHOOK_DELIVERY_LOG_DAYS');
    refuses({ CONVERSION_TIMEOUT_SECONDS: '0' }, 'CONVERSION_TIMEOUT_SECONDS');
    refuses({ CONVERSION_WALL_CEILING_FACTOR: '0' }, 'CONVERSION_WALL_CEILING_FACTOR');
    refuses({ WORKER_CONCURRENCY: 'many' }, 'WORKER_CONCURRENCY');
  });

  void it('takes a redis:// or rediss:// REDIS_URL, the embedded queue when unset', () => {
    assert.equal(loadConfig({}).redisUrl, undefined);
    assert.equal(loadConfig({}).redisPrefix, 'vitrine');
    const plain = loadConfig({ REDIS_URL: 'redis://localhost:6379/2', REDIS_PREFIX: 'site-a' });
    assert.equal(plain.redisUrl, 'redis://localhost:6379/2');
    assert.equal(plain.redisPrefix, 'site-a');
    const tls = loadConfig({ REDIS_URL: 'rediss://:secret@cache.example.com:6380' });
    assert.equal(tls.redisUrl, 'rediss://:secret@cache.example.com:6380');
  });

  void it('names every bad variable at once', () => {
    assert.throws(
      () => loadConfig({ PORT: 'x', API_TOKEN: 'short', LOG_LEVEL: 'loud' }),
      (error: unknown) => {
        assert.ok(error instanceof ConfigError);
        for (const name of ['PORT', 'API_TOKEN', 'LOG_LEVEL']) assert.match(error.message, new RegExp(name));
        return true;
      },
    );
  });
});

void describe('loadConfig GLB_COMPRESSION', () => {
  void it('compresses levels of detail with meshopt by default and accepts none', () => {
    assert.equal(loadConfig({}).glbCompression, 'meshopt');
    assert.equal(loadConfig({ GLB_COMPRESSION: 'none' }).glbCompression, 'none');
    assert.equal(loadConfig({ GLB_COMPRESSION: 'meshopt' }).glbCompression, 'meshopt');
  });

  void it('refuses draco, which has no encoder here, and anything else, naming the variable', () => {
    refuses({ GLB_COMPRESSION: 'draco' }, 'GLB_COMPRESSION');
    assert.throws(
      () => loadConfig({ GLB_COMPRESSION: 'draco' }),
      /no Draco encoder is installed.*use meshopt/,
    );
    for (const value of ['gzip', 'MESHOPT', 'yes']) refuses({ GLB_COMPRESSION: value }, 'GLB_COMPRESSION');
  });
});

void describe('loadConfig LOD_TEXTURES', () => {
  void it('puts textures on the WebP ladder by default and accepts source', () => {
    assert.equal(loadConfig({}).lodTextures, 'webp');
    assert.equal(loadConfig({ LOD_TEXTURES: 'source' }).lodTextures, 'source');
    assert.equal(loadConfig({ LOD_TEXTURES: 'webp' }).lodTextures, 'webp');
  });

  void it('refuses anything else, naming the variable', () => {
    for (const value of ['ktx2', 'WEBP', 'png']) refuses({ LOD_TEXTURES: value }, 'LOD_TEXTURES');
  });
});

void describe('loadConfig S3 storage', () => {
  void it('keeps the file store as the default', () => {
    assert.deepEqual(loadConfig({ DATA_DIR: '/srv/v' }).storage, { kind: 'file', root: '/srv/v/files' });
  });

  void it('reads bucket, prefix, endpoint, region, path style and URL life once', () => {
    const aws = loadConfig({
      STORAGE_URL: 's3://models-bucket/vitrine/prod/',
      AWS_REGION: 'eu-west-3',
    }).storage;
    assert.deepEqual(aws, {
      kind: 's3',
      bucket: 'models-bucket',
      prefix: 'vitrine/prod/',
      endpoint: undefined,
      region: 'eu-west-3',
      forcePathStyle: false,
      urlExpiresSeconds: 3600,
    });
    const minio = loadConfig({
      STORAGE_URL: 's3://models',
      S3_ENDPOINT: 'http://minio:9000/',
      S3_URL_EXPIRES_SECONDS: '600',
    }).storage;
    assert.deepEqual(minio, {
      kind: 's3',
      bucket: 'models',
      prefix: '',
      endpoint: 'http://minio:9000',
      region: 'us-east-1',
      forcePathStyle: true,
      urlExpiresSeconds: 600,
    });
    const virtualHosted = loadConfig({
      STORAGE_URL: 's3://models',
      S3_ENDPOINT: 'https://s3.example.com',
      S3_REGION: 'auto',
      S3_FORCE_PATH_STYLE: 'false',
    }).storage;
    assert.equal(virtualHosted.kind === 's3' && virtualHosted.forcePathStyle, false);
    assert.equal(virtualHosted.kind === 's3' && virtualHosted.region, 'auto');
  });

  void it('throws naming the variable for each unusable S3 value', () => {
    for (const url of ['s3://', 's3://B', 's3://bucket_name/p', 's3://bucket/../p']) {
      refuses({ STORAGE_URL: url }, 'STORAGE_URL');
    }
    for (const endpoint of ['minio:9000', 'ftp://minio', 'http://']) {
      refuses({ STORAGE_URL: 's3://models', S3_ENDPOINT: endpoint }, 'S3_ENDPOINT');
    }
    refuses({ STORAGE_URL: 's3://models', S3_FORCE_PATH_STYLE: 'maybe' }, 'S3_FORCE_PATH_STYLE');
    for (const seconds of ['0', '59', '604801', 'hour']) {
      refuses({ STORAGE_URL: 's3://models', S3_URL_EXPIRES_SECONDS: seconds }, 'S3_URL_EXPIRES_SECONDS');
    }
  });
});
