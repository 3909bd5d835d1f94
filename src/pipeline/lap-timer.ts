/** A stopwatch: each call answers the whole milliseconds since the call before it (or since it was made). */
export function lapTimer(): () => number {
  let since = performance.now();
  return () => {
    const now = performance.now();
    const ms = Math.round(now - since);
    since = now;
    return ms;
  };
}
