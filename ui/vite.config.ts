import { defineConfig } from 'vitest/config';
import { svelte } from '@sveltejs/vite-plugin-svelte';

// `base: '/'`: the server serves the UI at the root, and the page URL carries a
// `#token=` fragment, so asset URLs are absolute.
export default defineConfig(({ mode }) => ({
  base: '/',
  plugins: [svelte()],
  // Under vitest (mode "test"), resolve Svelte's browser build so components mount in jsdom.
  resolve: mode === 'test' ? { conditions: ['browser'] } : undefined,
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    target: 'es2022',
    // The server applies `script-src 'self'`: never inline assets as data: URLs.
    assetsInlineLimit: 0,
  },
  test: {
    // CSS is stubbed out in tests, except app.css: the palette test reads it (`?raw`).
    css: { include: [/\/app\.css/] },
    setupFiles: ['src/lib/testing/setup.ts'],
    // Test files share their worker's jsdom and modules (no fresh environment per file: ~4x faster
    // on 2 cores); each test cleans up what it mounts, and src/lib/testing/setup.ts resets the language,
    // the theme and storage after every test. A file that replaces a module
    // (`vi.mock`) runs on its own, since a module already loaded by another file would not be replaced.
    projects: [
      {
        extends: true,
        test: { name: 'shared', environment: 'jsdom', include: ['src/**/*.test.ts'], exclude: ['src/**/*.charts.test.ts'], pool: 'threads', isolate: false },
      },
      { extends: true, test: { name: 'isolated', environment: 'jsdom', include: ['src/**/*.charts.test.ts'] } },
    ],
  },
}));
