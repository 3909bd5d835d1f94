// The faults of the soak benchmark: a schedule drawn from a seed, and their injection into the running system.
import { sleep } from '../test/system/service-process.ts';
import type { BackingServices } from './backing-services.ts';
import type { SoakCluster } from './soak-cluster.ts';

/** The kinds of fault, each ending with the system whole again (process restarted, proxy thawed, S3 back). */
export const FAULT_KINDS = [
  'kill -9 worker',
  'kill -9 serve',
  'freeze PostgreSQL 20 s',
  'freeze Redis 20 s',
  'stop S3 10 s',
] as const;

/** One kind of fault. */
export type FaultKind = (typeof FAULT_KINDS)[number];

/** A fault of the schedule, and when it really ran. */
export interface Fault {
  kind: FaultKind;
  /** Which of the two processes, for the kills. */
  target: number;
  /** When it is due, in ms from the start of the uploads. */
  dueMs: number;
  /** When it began and when the system was whole again, in ms from the start of the uploads. */
  startedMs?: number;
  endedMs?: number;
}

/** mulberry32: a small seeded generator of numbers in [0, 1), so that a seed repeats its schedule. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` faults of random kinds at random times between 10 s and `spanMs`, in time order. */
export function faultSchedule(random: () => number, count: number, spanMs: number): Fault[] {
  const faults = Array.from({ length: count }, () => ({
    kind: FAULT_KINDS[Math.floor(random() * FAULT_KINDS.length)],
    target: random() < 0.5 ? 0 : 1,
    dueMs: Math.round(10_000 + random() * Math.max(0, spanMs - 10_000)),
  }));
  return faults.sort((a, b) => a.dueMs - b.dueMs);
}

/** Injects one fault and resolves once the system is whole again. */
async function inject(fault: Fault, cluster: SoakCluster, services: BackingServices): Promise<void> {
  switch (fault.kind) {
    case 'kill -9 worker':
      return cluster.killAndRestart('worker', fault.target);
    case 'kill -9 serve':
      return cluster.killAndRestart('serve', fault.target);
    case 'freeze PostgreSQL 20 s':
      return services.postgresProxy!.freezeFor(20_000);
    case 'freeze Redis 20 s':
      return services.redisProxy!.freezeFor(20_000);
    case 'stop S3 10 s':
      await services.s3.stop();
      await sleep(10_000);
      return services.s3.restart();
  }
}

/**
 * Runs the schedule one fault at a time from `startedAt` (a `performance.now()`): a fault falling due while the one
 * before still runs starts right after it. Records when each ran.
 */
export async function runFaults(
  faults: Fault[],
  startedAt: number,
  cluster: SoakCluster,
  services: BackingServices,
  log: (line: string) => void,
): Promise<void> {
  const now = () => Math.round(performance.now() - startedAt);
  for (const fault of faults) {
    await sleep(Math.max(0, fault.dueMs - now()));
    fault.startedMs = now();
    log(
      `${(fault.startedMs / 1000).toFixed(1)} s: ${fault.kind}${fault.kind.startsWith('kill') ? ` #${fault.target}` : ''}`,
    );
    await inject(fault, cluster, services);
    fault.endedMs = now();
  }
}
