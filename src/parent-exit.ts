/**
 * Resolves once the process that started this one has exited, when that process is npm (`npx vitrine …`,
 * `npm exec`, `npm start`, `npm run …`); never resolves otherwise.
 *
 * Why: npm runs a command through `sh -c` and forwards SIGTERM and SIGINT only to that shell. Debian's `sh` (dash)
 * stays the parent of `vitrine` instead of replacing itself with it, so under a process manager that signals only
 * npm's pid (Docker, `kill <pid>`) the shell dies, npm exits, and vitrine is left running with nobody to stop it.
 * Neither npm (which always spawns through a shell for `exec` and `run`) nor the command (npx gives it no `exec`)
 * can be changed to deliver the signal, so vitrine watches instead: npm is a foreground supervisor, and when it or
 * its shell goes away, vitrine stops as it would on SIGTERM. Started any other way (`node bin/vitrine.js`, systemd,
 * `nohup … &`), losing the parent is normal and vitrine keeps running.
 */
export function untilNpmParentExits(
  env: NodeJS.ProcessEnv = process.env,
  intervalMs = PARENT_POLL_MS,
): Promise<void> {
  // npm sets npm_lifecycle_event for every script it runs (`npx` for npx and npm exec, `start`, the script's name).
  if (!env.npm_lifecycle_event) return new Promise(() => {});
  const parent = process.ppid;
  return new Promise((resolve) => {
    // An orphan is adopted by init or a subreaper, so a changed ppid means the parent has exited.
    const timer = setInterval(() => {
      if (process.ppid === parent) return;
      clearInterval(timer);
      resolve();
    }, intervalMs);
    // The watch alone must not keep a process alive that has nothing else to do.
    timer.unref();
  });
}

/** How often the parent is checked: a quarter second leaves most of a process manager's grace period to shut down. */
const PARENT_POLL_MS = 250;
