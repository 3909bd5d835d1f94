/** Thrown when an environment variable holds a value the service cannot use; names the variable. */
export class ConfigError extends Error {
  override readonly name = 'ConfigError';
}
