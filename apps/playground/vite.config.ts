import { fileURLToPath } from 'node:url'
import react from '@vitejs/plugin-react'
import { defineConfig, type ProxyOptions } from 'vite'

// Sibling packages are read from source (`@baton/source`), so no package build is needed.
// `pnpm dev` proxies the API to a server on BATON_SERVER_URL (default the server's own default).
const server = process.env.BATON_SERVER_URL ?? 'http://127.0.0.1:8787'
// The server refuses changes from pages of other origins: the dev server's own page is passed
// on as the server's, any other origin as it came (and refused).
const proxied: ProxyOptions = {
  target: server,
  configure: (proxy) =>
    proxy.on('proxyReq', (outgoing, incoming) => {
      if (incoming.headers.origin === `http://${incoming.headers.host}`) {
        outgoing.setHeader('origin', new URL(server).origin)
      }
    }),
}
const serverOnly = fileURLToPath(new URL('./src/api/server-only-module.ts', import.meta.url))

export default defineConfig({
  plugins: [react()],
  resolve: {
    conditions: ['@baton/source', 'module', 'browser', 'development|production'],
    // @baton/comm loads these lazily for rails the browser never uses; keep them out of the build.
    alias: { ioredis: serverOnly, ws: serverOnly },
  },
  build: { outDir: 'dist', emptyOutDir: true, chunkSizeWarningLimit: 4000 },
  server: { proxy: { '/api': proxied, '/agent': proxied } },
})
