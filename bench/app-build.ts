// How long building the HTTP app takes, the first time in a process and the times after (the tests build hundreds in
// their processes): processor time of `buildApp` through `ready()`, on SQLite, each build closed before the next.
// `npx tsx bench/app-build.ts [builds]`; run it on two checkouts to compare them.
import { createTestApp } from '../test/helpers/test-app.ts';

const builds = Number(process.argv[2] ?? 6);
const rows: string[] = [];
for (let i = 0; i < builds; i++) {
  const started = process.cpuUsage();
  const wallStarted = performance.now();
  const testApp = await createTestApp('sqlite');
  await testApp.app.ready();
  const used = process.cpuUsage(started);
  rows.push(
    `| ${i + 1} | ${((used.user + used.system) / 1000).toFixed(0)} | ${(performance.now() - wallStarted).toFixed(0)} |`,
  );
  await testApp.close();
}
console.log(['| build | processor ms | wall ms |', '| ----- | ------------ | ------- |', ...rows].join('\n'));
