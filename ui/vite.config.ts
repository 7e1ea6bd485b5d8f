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
    environment: 'jsdom',
    include: ['src/**/*.test.ts'],
    // CSS is stubbed out in tests, except app.css: the palette test reads it (`?raw`).
    css: { include: [/\/app\.css/] },
  },
}));
