import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { build } from 'vite'
import type { TestProject } from 'vitest/node'
import { chromiumAvailable } from './chromium'

declare module 'vitest' {
  export interface ProvidedContext {
    /** The playground built once for every browser test of the run ('' without Chromium). */
    playgroundDir: string
  }
}

const appRoot = fileURLToPath(new URL('..', import.meta.url))

/**
 * Builds the playground once for all the browser tests (each used to build its own copy),
 * and removes the build after them. Without Chromium the browser tests are skipped, so
 * nothing is built.
 */
export default async function setup(project: TestProject) {
  if (!chromiumAvailable()) {
    project.provide('playgroundDir', '')
    return
  }
  const outDir = await mkdtemp(join(tmpdir(), 'baton-playground-dist-'))
  await build({ root: appRoot, logLevel: 'error', build: { outDir, emptyOutDir: true } })
  project.provide('playgroundDir', outDir)
  return () => rm(outDir, { recursive: true, force: true })
}
