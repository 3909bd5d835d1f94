// The part of autocannon's programmatic API the benchmarks use; the package ships no types.
declare module 'autocannon' {
  /** Options of one load run. */
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    pipelining?: number;
    headers?: Record<string, string>;
  }
  /** Summary statistics of one measure. */
  interface Stat {
    average: number;
    mean: number;
    p50: number;
    p99: number;
    total: number;
  }
  /** What one run measured. */
  interface Result {
    requests: Stat;
    latency: Stat;
    errors: number;
    timeouts: number;
    non2xx: number;
  }
  /** Runs a load test and resolves with its summary. */
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
