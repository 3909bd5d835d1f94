// Runs s3rver in its own process for the tests: `node --openssl-legacy-provider run-s3rver.mjs <dir> <bucket> [port]`.
// Its own process because s3rver signs listing continuation tokens with DES, which OpenSSL 3 only offers through the
// legacy provider, and so that its memory and CPU stay out of the measurements of the process under test.
// Prints `{"port":…}` once listening; runs until killed.
import fsp from 'node:fs/promises';
import path from 'node:path';
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
// s3rver stores multipart uploads but does not offer ListParts or AbortMultipartUpload, which resumable uploads
// (@tus/s3-store) rely on; they are answered here from the same folders s3rver keeps its parts in.
server.middleware.unshift(multipartUploadParts(server.store));
const address = await server.run();
process.stdout.write(`${JSON.stringify({ port: address.port })}\n`);

/** Koa middleware answering ListParts (GET ?uploadId) and AbortMultipartUpload (DELETE ?uploadId) as S3 does. */
function multipartUploadParts(store) {
  return async (ctx, next) => {
    const uploadId = ctx.query.uploadId;
    const [, bucketName, ...keyParts] = ctx.path.split('/');
    const listing = ctx.method === 'GET' && uploadId !== undefined && keyParts.length > 0;
    const aborting = ctx.method === 'DELETE' && uploadId !== undefined && keyParts.length > 0;
    if (!listing && !aborting) return next();
    const key = decodeURIComponent(keyParts.join('/'));
    // s3rver's own layout: <bucket folder>/uploads/<upload id>/{key, metadata, <n>, <n>.md5}.
    const folder = path.join(store.getResourcePath(bucketName, undefined, 'uploads'), String(uploadId));
    const storedKey = await fsp.readFile(path.join(folder, 'key'), 'utf8').catch(() => undefined);
    ctx.type = 'application/xml';
    if (storedKey !== key) {
      ctx.status = 404;
      ctx.body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>NoSuchUpload</Code><Message>The specified upload does not exist.</Message><UploadId>${uploadId}</UploadId></Error>`;
      return;
    }
    if (aborting) {
      await fsp.rm(folder, { recursive: true, force: true });
      ctx.status = 204;
      ctx.body = null;
      return;
    }
    const marker = Number(ctx.query['part-number-marker'] ?? 0);
    const parts = [];
    for (const name of await fsp.readdir(folder)) {
      if (!/^\d+$/.test(name) || Number(name) <= marker) continue;
      const stat = await fsp.stat(path.join(folder, name));
      const md5 = await fsp.readFile(path.join(folder, `${name}.md5`), 'utf8').catch(() => undefined);
      // A part still being written has no checksum yet; S3 lists only the parts it finished storing.
      if (md5 === undefined) continue;
      parts.push({ number: Number(name), size: stat.size, modified: stat.mtime, md5 });
    }
    parts.sort((a, b) => a.number - b.number);
    const escapedKey = key.replace(/&/g, '&amp;').replace(/</g, '&lt;');
    ctx.status = 200;
    ctx.body =
      `<?xml version="1.0" encoding="UTF-8"?>\n<ListPartsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">` +
      `<Bucket>${bucketName}</Bucket><Key>${escapedKey}</Key><UploadId>${uploadId}</UploadId>` +
      `<PartNumberMarker>${marker}</PartNumberMarker><MaxParts>10000</MaxParts><IsTruncated>false</IsTruncated>` +
      parts
        .map(
          (part) =>
            `<Part><PartNumber>${part.number}</PartNumber><LastModified>${part.modified.toISOString()}</LastModified>` +
            `<ETag>"${part.md5}"</ETag><Size>${part.size}</Size></Part>`,
        )
        .join('') +
      `</ListPartsResult>`;
  };
}
