// Which failed test files `npm test` runs a second time: browser suites only, and only when every failure of the
// run is in one. Software WebGL on a busy two-core machine can hold a page's frames past any deadline a test sets;
// such a file gets one more run, on its own, and passes only if it passes whole then. A failure anywhere else is a
// fault of the code or the test and is never run again.

/** Where the browser suites live. */
const BROWSER_FOLDER = 'test/e2e/';
/** More browser files failing at once than this is a fault of the viewer or the server, not of a busy machine. */
export const MAX_RETRIED_FILES = 3;

/** The file of a line the failure reporter wrote (`  <file> › <test>: <error>`), or undefined if it names none. */
export function failedFile(line: string): string | undefined {
  const at = line.indexOf(' › ');
  if (at < 0) return undefined;
  const file = line.slice(0, at).trim();
  return file === '' || file === '(no file)' ? undefined : file;
}

/**
 * The browser files to run again after a failed run, or an empty list when the run is final as it is: a failure
 * outside the browser suites, one naming no file, more than {@link MAX_RETRIED_FILES} files, or a run that failed
 * with no failed test listed (a crash, a signal).
 */
export function browserFilesToRetry(failureLines: string[]): string[] {
  const files = failureLines.map(failedFile);
  if (files.length === 0) return [];
  if (files.some((file) => file === undefined || !file.startsWith(BROWSER_FOLDER))) return [];
  const unique = [...new Set(files as string[])].sort();
  return unique.length > MAX_RETRIED_FILES ? [] : unique;
}
