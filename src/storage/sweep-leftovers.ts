import fsp from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

/**
 * Names what one process leaves on disk while it works (its scratch folders, its partial files): host and pid,
 * so a later sweep can tell a dead process's left-overs from a live one's.
 */
export function processTag(pid = process.pid): string {
  return `${HOST}-${pid}`;
}

/** This host's name without dots, so a tag stays one unambiguous segment of a file name. */
const HOST = os.hostname().replace(/[^A-Za-z0-9-]/g, '_');

/** Where this process keeps its scratch files under `parent` (`tmp/jobs`, `tmp/uploads`). */
export function scratchDir(parent: string): string {
  return path.join(parent, processTag());
}

/** Options of {@link sweepLeftovers}. */
export interface SweepOptions {
  /** The service's DATA_DIR, holding `tmp/jobs` and `tmp/uploads`. */
  dataDir: string;
  /** The file store's folder, searched for partial files; absent when files are not on local disk. */
  storeRoot?: string;
  /** Anything older than this is removed whoever left it (another host's, or a name without a tag). */
  maxAgeMs?: number;
}

const DAY_MS = 24 * 60 * 60 * 1000;
const PARTIAL = /\.(?:([A-Za-z0-9_-]+)-)?(\d+)\.partial$/;

/**
 * Removes what killed or failed processes left: job folders (a killed conversion's can be 70 MB), partial
 * uploads and partial files in the store. Run at start, before this process creates anything, so its own tag
 * counts as left over too (a container restarts with the same pid). Entries of a live process on this host are
 * kept; those of other hosts only once older than `maxAgeMs`. Returns the paths removed.
 */
export async function sweepLeftovers(options: SweepOptions): Promise<string[]> {
  const maxAgeMs = options.maxAgeMs ?? DAY_MS;
  const removed: string[] = [];
  const remove = async (target: string) => {
    await fsp.rm(target, { recursive: true, force: true });
    removed.push(target);
  };
  for (const folder of ['jobs', 'uploads']) {
    const parent = path.join(options.dataDir, 'tmp', folder);
    for (const name of await namesIn(parent)) {
      const target = path.join(parent, name);
      const match = /^(.+)-(\d+)$/.exec(name);
      const owner = match ? ownerState(match[1]!, Number(match[2])) : 'unknown';
      if (owner === 'gone' || (owner === 'unknown' && (await olderThan(target, maxAgeMs))))
        await remove(target);
    }
  }
  if (options.storeRoot) {
    for (const relative of await fsp.readdir(options.storeRoot, { recursive: true }).catch(() => [])) {
      const match = PARTIAL.exec(relative);
      if (!match) continue;
      const target = path.join(options.storeRoot, relative);
      // A name without a host is from before tags had one: its pid is taken as this host's.
      const owner = ownerState(match[1] ?? HOST, Number(match[2]));
      if (owner === 'gone' || (owner === 'unknown' && (await olderThan(target, maxAgeMs))))
        await remove(target);
    }
  }
  return removed;
}

/** Empties this process's scratch folder under `parent`; called when no job of this process is running. */
export async function emptyScratch(parent: string): Promise<void> {
  const dir = scratchDir(parent);
  for (const name of await namesIn(dir)) await fsp.rm(path.join(dir, name), { recursive: true, force: true });
}

/** `gone`: this process (before it started anything) or a dead one on this host; `unknown`: another host's. */
function ownerState(host: string, pid: number): 'gone' | 'alive' | 'unknown' {
  if (host !== HOST) return 'unknown';
  if (pid === process.pid) return 'gone';
  try {
    process.kill(pid, 0);
    return 'alive';
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'gone';
  }
}

/** The names in a folder; none when the folder does not exist. */
export async function namesIn(dir: string): Promise<string[]> {
  try {
    return await fsp.readdir(dir);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw error;
  }
}

async function olderThan(target: string, ageMs: number): Promise<boolean> {
  const stat = await fsp.stat(target).catch(() => undefined);
  return stat !== undefined && Date.now() - stat.mtimeMs > ageMs;
}
