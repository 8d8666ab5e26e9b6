import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

const serverSource = fileURLToPath(new URL('../../../apps/server/src/', import.meta.url))

/** A server process of the scale-out tests' cluster. */
export type ClusterProcess = {
  url: string
  name: string
  child: { pid?: number | undefined; kill(signal: string): void }
  exited: Promise<unknown>
}

/** The scale-out tests' cluster (`apps/server/src/scale/__fixtures__/cluster.ts`). */
export type ClusterFixture = {
  startCluster(options: {
    names: string[]
    databaseUrl: string
    redisUrl: string
    dataDir: string
    environment?: Record<string, string>
    started: ClusterProcess[]
  }): Promise<ClusterProcess[]>
  stopCluster(processes: ClusterProcess[]): Promise<void>
}

/**
 * Loads the server's cluster fixture by path at run time, as the other server rows load the
 * server: the bench measures the server, it does not build against it.
 *
 * @example
 * const { startCluster, stopCluster } = await loadClusterFixture()
 */
export async function loadClusterFixture(): Promise<ClusterFixture> {
  return (await import(
    pathToFileURL(path.join(serverSource, 'scale/__fixtures__/cluster.ts')).href
  )) as ClusterFixture
}
