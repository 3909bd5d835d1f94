import fs from 'node:fs';
import path from 'node:path';

/**
 * Reads `.env` from the working folder into `process.env` with Node's own loader, if the file exists. Variables
 * already set in the environment win over the file. Returns the file read, or undefined.
 */
export function loadEnvFile(folder = process.cwd()): string | undefined {
  const file = path.join(folder, '.env');
  if (!fs.existsSync(file)) return undefined;
  process.loadEnvFile(file);
  return file;
}
