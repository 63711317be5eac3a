import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

// Served by the gateway under /console/ (same origin as the API), or by any static host that
// proxies /console/api and /console/auth to a gateway.
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/console/',
  oxc: { jsx: { runtime: 'automatic' } },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    sourcemap: false,
    // The API reference page's Swagger UI (1.4 MB) is a chunk of its own, loaded on that page only.
    chunkSizeWarningLimit: 1500,
    rolldownOptions: {
      // The component libraries mark modules "use client" for React Server Components; meaningless in a plain SPA.
      onwarn(warning, warn) {
        if (warning.code !== 'MODULE_LEVEL_DIRECTIVE') warn(warning);
      },
      output: {
        // The chart library is only needed by the overview: its own chunk, loaded with that page.
        advancedChunks: { groups: [{ name: 'charts', test: /node_modules[\\/](recharts|@mantine[\\/]charts|d3-|victory-vendor)/ }] },
      },
    },
  },
});
