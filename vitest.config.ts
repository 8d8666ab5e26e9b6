import { availableParallelism } from 'node:os'
import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    projects: ['packages/*', 'apps/*', 'examples'],
    // vitest's default is one worker fewer than the cores: a single worker on two cores.
    // Much of this suite waits on child processes, servers and timers, so two files at
    // once share two cores rather than queue for them.
    maxWorkers: Math.max(2, availableParallelism() - 1),
  },
})
