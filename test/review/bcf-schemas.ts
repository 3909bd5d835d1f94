import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import yauzl from 'yauzl';
import { parseXml } from '../../src/review/bcf/xml-read.ts';

/** The BCF 3.0 XSDs shipped as fixtures (see their README for origin and licence). */
export const BCF_SCHEMAS = fileURLToPath(new URL('../fixtures/bcf/schemas/', import.meta.url));
const JAVA_VALIDATOR = fileURLToPath(new URL('../fixtures/bcf/ValidateXsd.java', import.meta.url));

/** Which validator checked the files: a real XSD validator when the machine has one, else a structural parse. */
export type XsdValidator = 'xmllint' | 'java' | 'structure';

function available(command: string, args: string[]): boolean {
  return spawnSync(command, args, { stdio: 'ignore' }).status === 0;
}

/** The best validator on this machine: xmllint, else the JDK's (through a one-file Java program), else none. */
export function xsdValidator(): XsdValidator {
  if (available('xmllint', ['--version'])) return 'xmllint';
  if (available('java', ['-version'])) return 'java';
  return 'structure';
}

/**
 * Validates XML files against one of the BCF schemas; returns the validator's complaints (empty when all are
 * valid). Without an XSD validator, only well-formedness and the expected root element are checked.
 */
export function validateAgainst(
  validator: XsdValidator,
  schema: string,
  files: string[],
  root: string,
): string {
  const xsd = path.join(BCF_SCHEMAS, schema);
  if (validator === 'xmllint') {
    const run = spawnSync('xmllint', ['--noout', '--schema', xsd, ...files], { encoding: 'utf8' });
    return run.status === 0 ? '' : `${run.stdout}${run.stderr}`;
  }
  if (validator === 'java') {
    const run = spawnSync('java', [JAVA_VALIDATOR, xsd, ...files], { encoding: 'utf8', timeout: 120_000 });
    return run.status === 0 ? '' : `${run.stdout}${run.stderr}` || `java exited ${run.status}`;
  }
  return files
    .map((file) => {
      try {
        const name = parseXml(fs.readFileSync(file, 'utf8')).name;
        return name === root ? '' : `${file}: root ${name}, not ${root}`;
      } catch (error) {
        return `${file}: ${(error as Error).message}`;
      }
    })
    .join('');
}

/** Every file of a zip by name. */
export async function unzipAll(bytes: Buffer): Promise<Map<string, Buffer>> {
  const zip = await new Promise<yauzl.ZipFile>((resolve, reject) =>
    yauzl.fromBuffer(bytes, { lazyEntries: true }, (error, opened) =>
      error ? reject(error) : resolve(opened!),
    ),
  );
  const files = new Map<string, Buffer>();
  await new Promise<void>((resolve, reject) => {
    zip.on('entry', (entry: yauzl.Entry) =>
      zip.openReadStream(entry, (error, stream) => {
        if (error) return reject(error);
        const chunks: Buffer[] = [];
        stream!.on('data', (chunk: Buffer) => chunks.push(chunk));
        stream!.on('end', () => {
          files.set(entry.fileName, Buffer.concat(chunks));
          zip.readEntry();
        });
      }),
    );
    zip.on('end', resolve);
    zip.on('error', reject);
    zip.readEntry();
  });
  return files;
}

/** What the schemas say of every XML file of a BCF zip (empty when all are valid), and which validator said it. */
export async function bcfZipComplaints(
  bytes: Buffer,
): Promise<{ validator: XsdValidator; complaints: string }> {
  const files = await unzipAll(bytes);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vitrine-bcf-'));
  try {
    for (const [name, data] of files) {
      fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true });
      fs.writeFileSync(path.join(dir, name), data);
    }
    const pick = (pattern: RegExp) =>
      [...files.keys()].filter((name) => pattern.test(name)).map((name) => path.join(dir, name));
    const validator = xsdValidator();
    const complaints = [
      validateAgainst(validator, 'version.xsd', pick(/^bcf\.version$/), 'Version'),
      validateAgainst(validator, 'extensions.xsd', pick(/^extensions\.xml$/), 'Extensions'),
      validateAgainst(validator, 'markup.xsd', pick(/\/markup\.bcf$/), 'Markup'),
      validateAgainst(validator, 'visinfo.xsd', pick(/\.bcfv$/), 'VisualizationInfo'),
    ].join('');
    return { validator, complaints };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
