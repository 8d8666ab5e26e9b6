import { defineConfig } from 'tsup'

export default defineConfig({
  // `@baton/core/mcp` is an entry of its own, so the main entry never loads the MCP SDK.
  entry: { index: 'src/index.ts', 'mcp/index': 'src/mcp/index.ts' },
  format: ['esm', 'cjs'],
  dts: { compilerOptions: { customConditions: [] } },
  clean: true,
  sourcemap: true,
  target: 'node20',
})
