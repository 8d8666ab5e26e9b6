import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig } from 'vite'

// Sibling packages are read from source (`@baton/source`), so no package build is needed.
// `pnpm dev` proxies the API to a server on BATON_SERVER_URL (default the server's own default).
const server = process.env.BATON_SERVER_URL ?? 'http://127.0.0.1:8787'
const serverOnly = fileURLToPath(new URL('./src/api/server-only-module.ts', import.meta.url))

export default defineConfig({
  plugins: [react()],
  resolve: {
    conditions: ['@baton/source', 'module', 'browser', 'development|production'],
    // @baton/comm loads these lazily for rails the browser never uses; keep them out of the build.
    alias: { ioredis: serverOnly, ws: serverOnly },
  },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 4000 },
  server: { proxy: { '/api': server, '/agent': server } },
})
