import { RedisUnreachableError } from './jobs/redis-connection.ts';

/** A failure to start that the operator can fix, told in one line instead of a stack trace; else undefined. */
export function startupMessage(error: unknown): string | undefined {
  if (error instanceof RedisUnreachableError) return error.message;
  const { code, port, address } = (error ?? {}) as { code?: unknown; port?: unknown; address?: unknown };
  const where = port === undefined ? 'the address' : `${String(address ?? 'the host')}:${String(port)}`;
  if (code === 'EADDRINUSE') {
    return `${where} is already in use; stop the program holding it or choose another PORT`;
  }
  if (code === 'EACCES') return `not allowed to listen on ${where}; choose a PORT above 1023`;
  if (code === 'EADDRNOTAVAIL') return `${where} is not an address of this machine; check HOST`;
  return undefined;
}
