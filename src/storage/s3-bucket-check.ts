import { ConfigError } from '../config-error.ts';
import type { S3StorageSettings } from './storage-settings.ts';

const CREDENTIALS = 'AWS credentials (AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_SESSION_TOKEN)';

/**
 * Turns a failed start-up HeadBucket into one line naming the setting to fix: STORAGE_URL for a bucket that is
 * not there, the AWS credentials when they are missing or refused, S3_REGION, or S3_ENDPOINT when the server
 * cannot be reached.
 */
export function bucketCheckError(error: unknown, settings: S3StorageSettings): ConfigError {
  const { name, message, code, $metadata } = (error ?? {}) as {
    name?: string;
    message?: string;
    code?: string;
    $metadata?: { httpStatusCode?: number };
  };
  const status = $metadata?.httpStatusCode;
  const bucket = `bucket "${settings.bucket}"`;
  const where = settings.endpoint ?? 'AWS S3';
  const line = (text: string) => new ConfigError(`S3 storage unusable: ${text}`);
  if (status === 404 || name === 'NotFound' || name === 'NoSuchBucket')
    return line(`STORAGE_URL names ${bucket}, which does not exist at ${where}`);
  if (status === 301 || name === 'PermanentRedirect')
    return line(`${bucket} is in another region than "${settings.region ?? 'the default'}"; set S3_REGION`);
  if (status === 401 || status === 403)
    return line(`${CREDENTIALS} are not accepted for ${bucket} at ${where} (HTTP ${status} ${name ?? ''})`);
  if (name === 'CredentialsProviderError')
    return line(`no ${CREDENTIALS} found; set them or configure another source of the AWS SDK's chain`);
  if (/region is missing/i.test(message ?? '')) return line('no region configured; set S3_REGION');
  if (status === undefined) {
    const reason = code ?? name ?? 'network error';
    return settings.endpoint
      ? line(`S3_ENDPOINT ${settings.endpoint} cannot be reached (${reason})`)
      : line(`AWS S3 cannot be reached (${reason}); check the network, or set S3_ENDPOINT`);
  }
  return line(`checking ${bucket} at ${where} failed (HTTP ${status} ${name ?? ''}); check STORAGE_URL`);
}
