// Suites that need a server or program the test harness cannot start by itself (Redis, Chromium). Outside CI a
// missing one skips them, with the reason, so a fresh clone's `npm test` passes and says what it left out; in CI
// (CI=true) they run and fail on it, so a CI run cannot pass without having run them.

/** node:test's `skip` option for such a suite: false when what it needs is there or in CI, else the reason. */
export function skipUnlessAvailable(available: boolean, reason: string): string | false {
  return available || process.env.CI === 'true' ? false : reason;
}
