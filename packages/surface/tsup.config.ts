import { defineConfig } from 'tsup'

export default defineConfig({
  entry: ['src/index.ts', 'src/vanilla.ts'],
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: 'node20',
})
