// Runs s3rver in its own process for the tests: `node --openssl-legacy-provider run-s3rver.mjs <dir> <bucket> [port]`.
// Its own process because s3rver signs listing continuation tokens with DES, which OpenSSL 3 only offers through the
// legacy provider, and so that its memory and CPU stay out of the measurements of the process under test.
// Prints `{"port":…}` once listening; runs until killed.
import process from 'node:process';
import S3rver from 's3rver';

const [directory, bucket, port = '0'] = process.argv.slice(2);
const server = new S3rver({
  address: '127.0.0.1',
  port: Number(port),
  directory,
  silent: true,
  configureBuckets: [{ name: bucket, configs: [] }],
});
const address = await server.run();
process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);
