import pg from 'pg'

let count = 0

/**
 * Creates a fresh, empty database in the PostgreSQL cluster at `clusterUrl` (connecting to
 * it as given) and returns the new database's URL.
 *
 * @example
 * const databaseUrl = await createDatabase('postgres://postgres@127.0.0.1:5433/postgres')
 */
export async function createDatabase(clusterUrl: string): Promise<string> {
  const name = `baton_test_${process.pid}_${Date.now()}_${count++}`
  const client = new pg.Client({ connectionString: clusterUrl })
  await client.connect()
  try {
    await client.query(`create database ${name}`)
  } finally {
    await client.end()
  }
  const databaseUrl = new URL(clusterUrl)
  databaseUrl.pathname = `/${name}`
  return databaseUrl.toString()
}
