// The layers of src/, lowest first, as the README's "Architecture" section draws them. A module may import its
// own folder, any folder of a lower layer and, within the features layer, only what another feature publishes.
// test/architecture/import-graph.test.ts holds the sources to this and keeps the README's drawing in step.

/** One layer: the folders of src/ (with a trailing slash) and the files at src/'s top it holds. */
export interface Layer {
  name: string;
  members: string[];
  /**
   * Set on the features layer: the file names a feature publishes to the others (its records and its API's
   * shapes); the rest of a feature is its own.
   */
  published?: string[];
}

/** The layers, lowest first. */
export const LAYERS: Layer[] = [
  { name: 'base', members: ['gltf/', 'config-error.ts', 'logger.ts'] },
  { name: 'engine', members: ['pipeline/', 'render/', 'writers/', 'part-diff/'] },
  { name: 'runtime', members: ['threads/'] },
  { name: 'platform', members: ['db/', 'storage/', 'jobs/', 'events/', 'http/'] },
  {
    name: 'features',
    members: [
      'access/',
      'catalog/',
      'configurations/',
      'exports/',
      'materials/',
      'review/',
      'uploads/',
      'webhooks/',
    ],
    published: ['repository.ts', 'schemas.ts'],
  },
  {
    name: 'app',
    members: [
      'config.ts',
      'env-file.ts',
      'services.ts',
      'app.ts',
      'job-runner.ts',
      'worker-process.ts',
      'server.ts',
      'startup-error.ts',
      'parent-exit.ts',
      'cli.ts',
    ],
  },
];
