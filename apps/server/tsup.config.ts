import { defineConfig } from 'tsup'

// The server runs from this build in production (`pnpm start`); its dependencies, the
// @baton packages among them, stay external and load from their own builds.
export default defineConfig({
  entry: ['src/main.ts'],
  format: ['esm'],
  clean: true,
  sourcemap: true,
  target: 'node20',
  platform: 'node',
})
