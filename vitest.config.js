// vitest.config.js: the one Vitest configuration (Node environment) for the
// pure-JS tests: tests/js/ui-*.test.js (visualizer) and tests/js/wasm-*.test.js (WASM API).
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/js/**/*.test.js'],
    environment: 'node',
    testTimeout: 60000,
    pool: 'forks',
  },
});
