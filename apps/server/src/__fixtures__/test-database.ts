import { type OpenedDatabase, openDatabase } from '../db/open-database'
import { createRepositories, type Repositories } from '../db/repositories'
import { testSettings } from '../settings'
import { type Backend, databaseSettings } from './backends'
import { pgliteTemplate } from './test-app'

/**
 * A fresh, migrated database on `backend` for one test file: PGlite from the test run's
 * template, or a new database in its PostgreSQL cluster.
 *
 * @example
 * const opened = await openTestDatabase('pglite')
 * const repositories = createRepositories(opened.db)
 */
export async function openTestDatabase(backend: Backend): Promise<OpenedDatabase> {
  const settings = testSettings(await databaseSettings(backend))
  return openDatabase({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    template: await pgliteTemplate(),
  })
}

/**
 * `openTestDatabase` and the repositories over it.
 *
 * @example
 * ;({ opened, repositories } = await openTestRepositories('pglite'))
 */
export async function openTestRepositories(
  backend: Backend,
): Promise<{ opened: OpenedDatabase; repositories: Repositories }> {
  const opened = await openTestDatabase(backend)
  return { opened, repositories: createRepositories(opened.db) }
}
