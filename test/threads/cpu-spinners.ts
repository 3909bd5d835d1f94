import { spawn, type ChildProcess } from 'node:child_process';
import os from 'node:os';

/** Busy processes started beside a test, to load the machine as other work would; `stop` kills each and waits. */
export interface CpuSpinners {
  stop(): Promise<void>;
}

/** Starts `perCore` processes per core that spin on the processor until stopped (two per core by default). */
export function startCpuSpinners(perCore = 2): CpuSpinners {
  const count = perCore * os.availableParallelism();
  const children: ChildProcess[] = [];
  for (let i = 0; i < count; i++) {
    children.push(spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' }));
  }
  return {
    async stop() {
      await Promise.all(
        children.map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null || child.signalCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGKILL');
            }),
        ),
      );
    },
  };
}
