/**
 * The flags every measuring process runs with: Baton's packages as users install them (their
 * `dist/`, resolved without the `@baton/source` condition; `pnpm build` first), the bench's own
 * TypeScript through tsx, and `gc()` for settled heaps.
 */
export const CHILD_NODE_FLAGS = ['--import', 'tsx', '--expose-gc']

/**
 * The same, reading Baton's packages from their sources: for the one case that swaps source
 * modules for others (`chain-telemetry`'s switch), which a bundled `dist/` has not.
 */
export const SOURCE_NODE_FLAGS = [...CHILD_NODE_FLAGS, '--conditions=@baton/source']
