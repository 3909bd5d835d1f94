// Loaded with `node --import`: records the URL of every module the process resolves into the file named by
// VITRINE_IMPORT_LOG, so a test can tell which packages a command loads.
import { register } from 'node:module';

register('./import-hooks.mjs', import.meta.url);
