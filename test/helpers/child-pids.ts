import { readFileSync, readdirSync } from 'node:fs';

/** The ids of this process's child processes, read from `/proc` (Linux). */
export function childPids(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    const children = readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim();
    if (children) pids.push(...children.split(' ').map(Number));
  }
  return pids;
}
