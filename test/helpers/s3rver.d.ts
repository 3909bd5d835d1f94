// s3rver ships no types; this covers the part the tests use.
declare module 's3rver' {
  import type { Server } from 'node:http';
  import type { AddressInfo } from 'node:net';

  interface S3rverOptions {
    address?: string;
    port?: number;
    directory?: string;
    silent?: boolean;
    configureBuckets?: { name: string; configs: (string | Buffer)[] }[];
  }

  /** A local S3-compatible server (a Koa app) storing objects in a folder. */
  export default class S3rver {
    constructor(options: S3rverOptions);
    /** Creates the configured buckets and listens; resolves with the bound address. */
    run(): Promise<AddressInfo>;
    close(): Promise<void>;
    httpServer: Server;
  }
}
