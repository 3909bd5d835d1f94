import { readFileSync, readdirSync } from 'node:fs';

/** The ids of this process's child processes, read from `/proc` (Linux). */
export function childPids(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task')) {
    const children = taskChildren(task);
    if (children) pids.push(...children.split(' ').map(Number));
  }
  return pids;
}

/** A thread's children, or '' when the thread ended between listing the tasks and reading its file. */
function taskChildren(task: string): string {
  try {
    return readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
    throw error;
  }
}
