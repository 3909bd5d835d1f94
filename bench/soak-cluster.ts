// The processes of the soak benchmark: two `vitrine serve` and two `vitrine worker`, each restartable after a kill -9.
import fs from 'node:fs';
import path from 'node:path';
import {
  freePort,
  runCli,
  sleep,
  waitForHealth,
  type ServiceProcess,
} from '../test/system/service-process.ts';
import type { BackingServices } from './backing-services.ts';

/** A process role the soak runs two of. */
export type Role = 'serve' | 'worker';

/** Two serve and two worker processes sharing one set of backing services. */
export interface SoakCluster {
  /** The base URLs of the two serve processes, each on a fixed port that survives restarts. */
  urls: string[];
  /** Kills process `index` of `role` with SIGKILL, starts it again with the same settings and waits until it is ready. */
  killAndRestart(role: Role, index: number): Promise<void>;
  /** Kills every process; their output is in `logDir`. */
  stop(): Promise<void>;
}

const READY_MS = 180_000;

/** Starts the four processes and resolves once the serves answer /health and the workers said they started. */
export async function startSoakCluster(
  services: BackingServices,
  token: string,
  logDir: string,
): Promise<SoakCluster> {
  fs.mkdirSync(logDir, { recursive: true });
  const ports = [await freePort(), await freePort()];
  const urls = ports.map((port) => `http://127.0.0.1:${port}`);
  // Settings (and DATA_DIR) are kept per process so that a restart is the same process coming back, as under a supervisor.
  const settings: Record<Role, Record<string, string>[]> = {
    // At info level the logs name every request, to follow an upload the report singles out.
    serve: ports.map((port) =>
      services.settings({ API_TOKEN: token, PORT: String(port), LOG_LEVEL: 'info' }),
    ),
    worker: ports.map(() => services.settings({ API_TOKEN: token, LOG_LEVEL: 'info' })),
  };
  const running: Record<Role, ServiceProcess[]> = { serve: [], worker: [] };
  const launch = (role: Role, index: number): ServiceProcess => {
    const service = runCli(role, settings[role][index]);
    // Each run's output is appended when it ends, so a killed process leaves what it said before dying.
    void service.exited.then(({ code, signal }) =>
      fs.appendFileSync(
        path.join(logDir, `${role}-${index}.log`),
        `${service.stdout()}${service.stderr()}--- exited ${code ?? signal}\n`,
      ),
    );
    running[role][index] = service;
    return service;
  };
  const ready = async (role: Role, index: number) => {
    if (role === 'serve') await waitForHealth(urls[index], READY_MS);
    else await running.worker[index].waitForOutput(/worker started/, READY_MS);
  };
  for (const role of ['serve', 'worker'] as const) for (const index of [0, 1]) launch(role, index);
  for (const role of ['serve', 'worker'] as const) for (const index of [0, 1]) await ready(role, index);
  return {
    urls,
    async killAndRestart(role, index) {
      const victim = running[role][index];
      victim.child.kill('SIGKILL');
      await victim.exited;
      // A supervisor restarts after a moment, not at once.
      await sleep(1000);
      launch(role, index);
      await ready(role, index);
    },
    async stop() {
      const all = [...running.serve, ...running.worker];
      for (const service of all) service.child.kill('SIGKILL');
      await Promise.all(all.map((service) => service.exited));
      // Let the exit handlers write the logs.
      await sleep(100);
    },
  };
}
