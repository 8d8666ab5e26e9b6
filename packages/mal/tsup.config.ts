import { defineConfig } from 'tsup'

export default defineConfig([
  {
    entry: ['src/index.ts'],
    format: ['esm', 'cjs'],
    dts: { compilerOptions: { customConditions: [] } },
    clean: true,
    sourcemap: true,
    target: 'node20',
  },
  {
    // The `mal` bin: ESM only, with its shebang.
    entry: ['src/cli.ts'],
    format: ['esm'],
    sourcemap: true,
    target: 'node20',
  },
])
