/** The flags every measuring process runs with: TypeScript sources, and `gc()` for settled heaps. */
export const CHILD_NODE_FLAGS = ['--import', 'tsx', '--conditions=@baton/source', '--expose-gc']
