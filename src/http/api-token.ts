import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

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
    if (stored.length >= 8) return { token: stored, source: 'file', file };
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
