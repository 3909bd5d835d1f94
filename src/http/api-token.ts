import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Shortest token accepted from the token file, matching the API_TOKEN rule of config.ts. */
const MIN_TOKEN_LENGTH = 8;

/** The token the service accepts and where it came from. */
export interface ResolvedToken {
  token: string;
  /** `env` when API_TOKEN set it, `file` when read from DATA_DIR, `generated` when created now. */
  source: 'env' | 'file' | 'generated';
  /** The file holding a stored token. */
  file: string;
}

/** Returns API_TOKEN when configured; otherwise the token kept in `<dataDir>/api-token`, generating it once. */
export function resolveApiToken(dataDir: string, configured: string | undefined): ResolvedToken {
  const file = path.join(dataDir, 'api-token');
  if (configured) return { token: configured, source: 'env', file };
  try {
    const stored = fs.readFileSync(file, 'utf8').trim();
    if (stored.length >= MIN_TOKEN_LENGTH) return { token: stored, source: 'file', file };
    // Overwriting it could lock out clients that hold its token; generating beside it would loop on `wx`.
    throw new Error(
      `${file} holds no usable API token (at least ${MIN_TOKEN_LENGTH} characters): fix or delete it, or set API_TOKEN`,
    );
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  fs.mkdirSync(dataDir, { recursive: true });
  const token = randomBytes(24).toString('base64url');
  // `wx` fails if another process created the file first; then its token is the one to use.
  try {
    fs.writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return resolveApiToken(dataDir, undefined);
    throw error;
  }
  return { token, source: 'generated', file };
}
