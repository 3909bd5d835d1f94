// Builds the viewer into web/dist, which the server serves at `/`; `vite` alone proxies the APIs to a local server.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const root = fileURLToPath(new URL('.', import.meta.url));
/** Where `npm run dev:web` sends API and file requests; the server's default address unless overridden. */
const target = process.env.VITRINE_URL ?? 'http://127.0.0.1:8080';

export default defineConfig({
  root,
  base: '/',
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    // three.js alone is ~600 KB minified; one hashed chunk cached for a year is fine for a viewer.
    chunkSizeWarningLimit: 1000,
    // The share page (/s/<secret>) is its own entry: it reuses the 3D view but none of the catalog.
    rolldownOptions: {
      input: { main: `${root}index.html`, share: `${root}share.html` },
      // The [PLUGIN_TIMINGS] note on a slow build names Vite's own plugins: a busy machine, nothing to act on.
      checks: { bundlerTimings: false },
    },
  },
  server: {
    proxy: {
      '/api': target,
      '/files': target,
      '/health': target,
      '/docs': target,
      '/oembed': target,
      // A pattern, not a prefix: a plain '/s' would also catch Vite's own '/src/…'.
      '^/s/': target,
    },
  },
});
