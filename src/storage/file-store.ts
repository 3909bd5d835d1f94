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
  /**
   * Makes the file's folder and writes into it. A delete elsewhere in the store may remove that folder in the
   * moment between the two when it found it empty, so a write that finds its folder gone makes it again.
   */
  const writeInto = async (file: string, write: () => Promise<void>): Promise<void> => {
    for (let attempt = 1; ; attempt += 1) {
      await fsp.mkdir(path.dirname(file), { recursive: true });
      try {
        return await write();
      } catch (error) {
        const folderGone =
          (error as NodeJS.ErrnoException).code === 'ENOENT' && !fs.existsSync(path.dirname(file));
        if (!folderGone || attempt === 3) throw error;
      }
    }
  };
  /**
   * Removes the folders above a deleted key that it left empty, up to the store's root (kept), so deleting a model's
   * files, or an export finishing after its model went, leaves no empty folders behind.
   */
  const removeEmptyFolders = async (file: string): Promise<void> => {
    for (
      let folder = path.dirname(file);
      folder.startsWith(resolved + path.sep);
      folder = path.dirname(folder)
    ) {
      try {
        await fsp.rmdir(folder);
      } catch (error) {
        // Gone already (a concurrent delete): its parent may still be empty. Anything else (not empty): stop.
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return;
      }
    }
  };

  return {
    localRoot: resolved,
    async putFile(key, localPath) {
      const file = fileFor(key);
      await writeInto(file, async () => {
        try {
          await fsp.rename(localPath, file);
        } catch (error) {
          if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
          // Copied beside and renamed, so a full disk leaves no half file under the real name.
          await writeThroughPartial(file, (partial) => fsp.copyFile(localPath, partial));
          await fsp.rm(localPath, { force: true });
        }
      });
      return { size: (await fsp.stat(file)).size };
    },
    async putBytes(key, bytes) {
      const file = fileFor(key);
      // Written beside and renamed so a reader never sees half a file.
      await writeInto(file, () => writeThroughPartial(file, (partial) => fsp.writeFile(partial, bytes)));
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
      const file = fileFor(key);
      await fsp.rm(file, { force: true });
      await removeEmptyFolders(file);
    },
    async deletePrefix(prefix) {
      const folder = fileFor(prefix);
      await fsp.rm(folder, { recursive: true, force: true });
      await removeEmptyFolders(folder);
    },
    publicUrl: filesRouteUrl,
  };
}
