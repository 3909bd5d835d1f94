import { ConfigError } from './config-error.ts';
import { loadConfig } from './config.ts';
import { loadEnvFile } from './env-file.ts';
import { startupMessage } from './startup-error.ts';
import { createDb } from './db/create-db.ts';
import { migrateToLatest } from './db/migrate.ts';
import { untilNpmParentExits } from './parent-exit.ts';

const USAGE = `Usage: vitrine <command>

Commands:
  start     API, web viewer and an embedded conversion worker in one process (what \`npm start\` runs)
  serve     API and web viewer only
  worker    conversion worker only (shares the database and storage with \`serve\`)
  migrate   apply database migrations and exit

Settings come from the environment and from a .env file in the working folder (the environment wins);
see .env.example.`;

/** Runs one CLI command; resolves with the process exit code. */
async function main(argv: string[]): Promise<number> {
  const command = argv[0] ?? 'start';
  if (command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(`${USAGE}\n`);
    return 0;
  }
  loadEnvFile();
  const config = loadConfig();
  if (command === 'migrate') {
    const database = createDb(config.databaseUrl, config);
    try {
      const applied = await migrateToLatest(database.db);
      process.stdout.write(applied.length ? `Applied: ${applied.join(', ')}\n` : 'Database is up to date\n');
    } finally {
      await database.close();
    }
    return 0;
  }
  if (command === 'start' || command === 'serve') {
    // Each command loads only what it runs: a worker process never loads the HTTP server.
    // Listening for signals before starting: one that comes during start-up (migrations, the sweep of scratch
    // folders, opening the stores) stops the process once it has started, instead of killing it mid-way.
    const stopped = untilSignal();
    const { startServer } = await import('./server.ts');
    const server = await startServer(config, { withWorker: command === 'start' });
    await stopped;
    server.app.log.info('shutting down');
    await server.close();
    return 0;
  }
  if (command === 'worker') {
    const stopped = untilSignal();
    const { startWorkerProcess } = await import('./worker-process.ts');
    const worker = await startWorkerProcess(config);
    await stopped;
    await worker.close();
    return 0;
  }
  process.stderr.write(`Unknown command "${command}".\n\n${USAGE}\n`);
  return 2;
}

/**
 * Resolves on the first SIGTERM or SIGINT, or when npm, having started this process, exits (see parent-exit.ts);
 * another signal more than a second later exits at once. Ctrl-C under `npm start` delivers SIGINT twice (from the
 * terminal, and again forwarded by npm): that pair counts as one.
 */
function untilSignal(): Promise<NodeJS.Signals | 'parent exited'> {
  const parentExited = untilNpmParentExits().then(() => 'parent exited' as const);
  return Promise.race([parentExited, untilFirstSignal()]);
}

/** Resolves on the first SIGTERM or SIGINT; another one more than a second later exits at once. */
function untilFirstSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    let first = 0;
    const onSignal = (signal: NodeJS.Signals) => {
      if (first === 0) {
        first = Date.now();
        resolve(signal);
      } else if (Date.now() - first > 1_000) {
        process.exit(130);
      }
    };
    process.on('SIGTERM', onSignal);
    process.on('SIGINT', onSignal);
  });
}

// The AWS SDK warns on every start under node 20 that its releases after January 2027 will need node 22: a note for
// whoever upgrades the SDK (package.json pins it and names the node versions), not for an operator, and nine lines
// that would bury a one-line start-up error. An explicit setting in the environment still wins.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error: unknown) => {
    const message =
      error instanceof ConfigError
        ? error.message
        : (startupMessage(error) ?? (error instanceof Error ? error.stack : String(error)));
    process.stderr.write(`vitrine: ${message}\n`);
    process.exit(1);
  },
);
