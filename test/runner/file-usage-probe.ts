// Loaded into each test file's process when TEST_USAGE_DIR is set: at exit it writes the file's wall time and the
// processor time of the process and of the children it waited for (servers, Chromium), for the runner's summary.
import fs from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

const folder = process.env.TEST_USAGE_DIR;
const file = process.argv[1];
if (folder && file && /\.test\.[jt]s$/.test(file)) {
  process.on('exit', () => {
    const usage = { file: path.relative(process.cwd(), file), ...processTimes() };
    fs.writeFileSync(path.join(folder, `${randomBytes(6).toString('hex')}.json`), JSON.stringify(usage));
  });
}

/** Wall and processor seconds of this process from `/proc/self/stat` (children: those reaped by now). */
function processTimes(): { wallSeconds: number; cpuSeconds: number; childCpuSeconds: number } {
  const wallSeconds = process.uptime();
  const own = process.cpuUsage();
  let childCpuSeconds = 0;
  try {
    // Fields after the command's closing parenthesis; cutime and cstime are the 14th and 15th of them.
    const stat = fs.readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticksPerSecond = 100;
    childCpuSeconds = (Number(fields[13]) + Number(fields[14])) / ticksPerSecond;
  } catch {
    // Not Linux: the children's share is left out.
  }
  return { wallSeconds, cpuSeconds: (own.user + own.system) / 1e6, childCpuSeconds };
}
