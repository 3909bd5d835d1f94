// The fingerprint of a build's inputs: a hash of the path and content of every file under the given paths, so an
// edit, an added or a removed file changes it and nothing else does (timestamps, which a checkout resets, play no part).
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/**
 * Hashes every file under `inputs` (files or folders relative to `root`), leaving out the folders in `exclude`;
 * a missing input counts as empty.
 * @param {string} root
 * @param {string[]} inputs
 * @param {string[]} [exclude]
 * @returns {string}
 */
export function fingerprint(root, inputs, exclude = []) {
  const skipped = new Set(exclude.map((relative) => path.join(root, relative)));
  const hash = createHash('sha256');
  for (const input of inputs) {
    for (const file of filesUnder(path.join(root, input), skipped)) {
      hash.update(path.relative(root, file)).update('\0');
      hash.update(fs.readFileSync(file)).update('\0');
    }
  }
  return hash.digest('hex');
}

/**
 * Every file under `entry` (itself when it is a file), in a stable order.
 * @param {string} entry
 * @param {Set<string>} skipped
 * @returns {string[]}
 */
function filesUnder(entry, skipped) {
  if (skipped.has(entry)) return [];
  let stat;
  try {
    stat = fs.statSync(entry);
  } catch {
    return [];
  }
  if (stat.isFile()) return [entry];
  if (!stat.isDirectory()) return [];
  return fs
    .readdirSync(entry)
    .sort()
    .flatMap((name) => filesUnder(path.join(entry, name), skipped));
}
