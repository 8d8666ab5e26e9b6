import { defineConfig } from 'tsup'

export default defineConfig({
  // The workspace kinds are entries of their own, so the main entry never loads playwright-core.
  entry: {
    index: 'src/index.ts',
    'browser/index': 'src/browser/index.ts',
    'display/index': 'src/display/index.ts',
  },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  external: ['playwright-core'],
})
