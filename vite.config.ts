import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/** Builds the renderer into dist/renderer with relative paths, so both file:// (Electron) and the web host can serve it. */
export default defineConfig({
  root: 'renderer',
  base: './',
  plugins: [react()],
  build: {
    outDir: '../dist/renderer',
    emptyOutDir: true,
    sourcemap: true,
    // One bundle for a desktop app loaded from disk or loopback; size is not a network cost here.
    chunkSizeWarningLimit: 2048,
  },
});
