// Where the test suites find their sample models: in the repository, so a fresh clone runs every suite.
import { fileURLToPath } from 'node:url';

/**
 * The sample models the tests read (`test/fixtures/models/`, with a trailing separator), each file copied unchanged
 * from its origin as `test/fixtures/models/SOURCES.md` records.
 */
export const SAMPLE_MODELS = fileURLToPath(new URL('../fixtures/models/', import.meta.url));
