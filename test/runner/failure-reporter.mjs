// A `node --test` reporter that writes one line per failed test (its file, name and error) for the
// runner to print after the summary, where the end of a long log shows it: in a run of some 1,800 tests the TAP
// report's `not ok` lines are thousands of lines above the last. Plain JavaScript: `node --test` loads its
// reporters before the `--import` hooks that would read TypeScript.
import path from 'node:path';
import process from 'node:process';

/**
 * The error a failed test threw, on one line and cut at 300 characters: its cause's when the runner wrapped it.
 * @param {{ message?: string, cause?: unknown } | undefined} error
 * @returns {string}
 */
export function failureMessage(error) {
  const cause = error?.cause;
  const message =
    cause instanceof Error
      ? cause.message
      : typeof cause === 'string'
        ? cause
        : (error?.message ?? 'failed with no error');
  return message.replace(/\s+/g, ' ').trim().slice(0, 300);
}

/**
 * One line for a failed test, or undefined for a suite that failed only because a test inside it did.
 * @param {{ name: string, file?: string, details: { error?: { failureType?: string, message?: string, cause?: unknown } } }} data
 * @returns {string | undefined}
 */
export function failureLine(data) {
  if (data.details.error?.failureType === 'subtestsFailed') return undefined;
  const where = data.file ? path.relative(process.cwd(), data.file) : '(no file)';
  return `  ${where} › ${data.name}: ${failureMessage(data.details.error)}`;
}

/**
 * The reporter: a line per failed test, nothing for the rest.
 * @param {AsyncIterable<{ type: string, data: any }>} source
 */
export default async function* failureReporter(source) {
  for await (const event of source) {
    if (event.type !== 'test:fail') continue;
    const line = failureLine(event.data);
    if (line) yield `${line}\n`;
  }
}
