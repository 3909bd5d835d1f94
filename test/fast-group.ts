// One process of `npm run test:fast`: imports the test files named in FAST_TEST_FILES (a JSON list), so their tests
// run here one after another and Node, the TypeScript loader and the shared modules start once, not once per file.
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const files = JSON.parse(process.env.FAST_TEST_FILES ?? '[]') as string[];
if (files.length === 0) throw new Error('FAST_TEST_FILES names no test file');
for (const file of files) await import(pathToFileURL(path.resolve(file)).href);
