// vite.config.js: builds the web UI (web/) into build/web. JSX is compiled for
// Preact; the WASM module (build/wasm/galloc.{mjs,wasm}) is bundled through
// web/src/core/galloc.js, which imports it by relative path.
import { defineConfig } from 'vite';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('./web', import.meta.url));

export default defineConfig({
  root,
  base: './',
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./build/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    chunkSizeWarningLimit: 1500,
  },
  server: { fs: { allow: [fileURLToPath(new URL('.', import.meta.url))] } },
});
