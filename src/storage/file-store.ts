import fs from 'node:fs';
import fsp from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Readable } from 'node:stream';
import type { BlobInfo, BlobStore } from './blob-store.ts';
import { filesRouteUrl } from './files-route.ts';
import { processTag } from './sweep-leftovers.ts';

/**
 * Writes `file` through a partial file beside it, tagged with this process so the start-up sweep can tell a
 * dead writer's left-over; a failed write (a full disk) removes its partial at once.
 */
async function writeThroughPartial(file: string, write: (partial: string) => Promise<void>): Promise<void> {
  const partial = `${file}.${processTag()}.partial`;
  try {
    await write(partial);
    await fsp.rename(partial, file);
  } catch (error) {
    await fsp.rm(partial, { force: true });
    throw error;
  }
}

/** A {@link BlobStore} on the local disk; objects are files under `root`, served by the app at `/files/`. */
export function createFileStore(root: string): BlobStore {
  const resolved = path.resolve(root);
  fs.mkdirSync(resolved, { recursive: true });
  const fileFor = (key: string): string => {
    const file = path.resolve(resolved, key);
    // Keys are built by the service, but a key that escaped the root would be a bug worth stopping loudly.
    if (!file.startsWith(resolved + path.sep)) throw new Error(`Blob key outside the store: ${key}`);
    return file;
  };
  const ensureDir = (file: string) => fsp.mkdir(path.dirname(file), { recursive: true });

  return {
    localRoot: resolved,
    async putFile(key, localPath) {
      const file = fileFor(key);
      await ensureDir(file);
      try {
        await fsp.rename(localPath, file);
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
        // Copied beside and renamed, so a full disk leaves no half file under the real name.
        await writeThroughPartial(file, (partial) => fsp.copyFile(localPath, partial));
        await fsp.rm(localPath, { force: true });
      }
      return { size: (await fsp.stat(file)).size };
    },
    async putBytes(key, bytes) {
      const file = fileFor(key);
      await ensureDir(file);
      // Written beside and renamed so a reader never sees half a file.
      await writeThroughPartial(file, (partial) => fsp.writeFile(partial, bytes));
      return { size: bytes.byteLength };
    },
    async read(key): Promise<Readable> {
      const file = fileFor(key);
      await fsp.access(file);
      return fs.createReadStream(file);
    },
    async head(key): Promise<BlobInfo | undefined> {
      try {
        return { size: (await fsp.stat(fileFor(key))).size };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
        throw error;
      }
    },
    async download(key, localPath) {
      await pipeline(fs.createReadStream(fileFor(key)), fs.createWriteStream(localPath)).catch(
        async (error: unknown) => {
          // The write stream creates its file before the read fails: a missing object must leave none.
          await fsp.rm(localPath, { force: true });
          throw error;
        },
      );
    },
    async delete(key) {
      await fsp.rm(fileFor(key), { force: true });
    },
    async deletePrefix(prefix) {
      await fsp.rm(fileFor(prefix), { recursive: true, force: true });
    },
    publicUrl: filesRouteUrl,
  };
}
