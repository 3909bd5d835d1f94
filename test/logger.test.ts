// The process logger batches its lines on stdout: they must still appear while the process runs and when it exits.
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';

const LOGGER = fileURLToPath(new URL('../src/logger.ts', import.meta.url));

/** Runs `body` in a fresh process with `logger` made by createLogger('info'); resolves with its stdout lines as they came. */
function runLogging(body: string): Promise<{ lines: { at: number; msg: string }[]; exitedAt: number }> {
  const script = `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst logger = createLogger('info');\n${body}`;
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const started = Date.now();
  const lines: { at: number; msg: string }[] = [];
  let pending = '';
  child.stdout.on('data', (chunk: Buffer) => {
    pending += chunk.toString();
    const complete = pending.split('\n');
    pending = complete.pop()!;
    for (const line of complete)
      lines.push({ at: Date.now() - started, msg: JSON.parse(line).msg as string });
  });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code) =>
      code === 0 ? resolve({ lines, exitedAt: Date.now() - started }) : reject(new Error(`exit ${code}`)),
    );
  });
}

void describe('the process logger', () => {
  void it('writes every buffered line when the process exits at once', async () => {
    const { lines } = await runLogging(
      'for (let i = 0; i < 3; i++) logger.info(`line ${i}`);\nprocess.exit(0);',
    );
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['line 0', 'line 1', 'line 2'],
    );
  });

  void it('writes a lone line within a fraction of a second, long before the process ends', async () => {
    const { lines, exitedAt } = await runLogging(
      "logger.info('alone');\nsetTimeout(() => process.exit(0), 3000);",
    );
    assert.deepEqual(
      lines.map((line) => line.msg),
      ['alone'],
    );
    assert.ok(exitedAt - lines[0]!.at > 2000, `written ${exitedAt - lines[0]!.at} ms before the exit`);
  });
});
