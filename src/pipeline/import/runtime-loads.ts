let loads = 0;

/**
 * Counts a WebAssembly runtime being loaded in this thread (assimp, OpenCASCADE, web-ifc): the tens of megabytes it
 * takes stay for as long as the thread lives, so the pool does not count them against the job that loaded it.
 */
export function countRuntimeLoad(): void {
  loads++;
}

/** WebAssembly runtimes loaded so far in this thread. */
export function runtimeLoads(): number {
  return loads;
}
