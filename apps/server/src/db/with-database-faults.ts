import type {
  CompiledQuery,
  DatabaseConnection,
  Dialect,
  Driver,
  QueryCompiler,
  QueryResult,
  TransactionSettings,
} from 'kysely'
import { databaseFaultOf } from './database-errors'

/**
 * Wraps a Kysely dialect so every failure that is the database's (unreachable, dropped, too
 * slow, out of disk) surfaces as a `DatabaseUnavailableError` or `StorageUnavailableError`,
 * whichever query or repository met it; other errors pass through unchanged.
 *
 * @example
 * const db = new Kysely<Database>({ dialect: withDatabaseFaults(new PostgresDialect({ pool }), url) })
 */
export function withDatabaseFaults(dialect: Dialect, location: string): Dialect {
  return {
    createAdapter: () => dialect.createAdapter(),
    createQueryCompiler: () => dialect.createQueryCompiler(),
    createIntrospector: (db) => dialect.createIntrospector(db),
    createDriver: () => new FaultMappingDriver(dialect.createDriver(), location),
  }
}

class FaultMappingDriver implements Driver {
  readonly #driver: Driver
  readonly #location: string
  // The driver's own connection behind each wrapped one: the driver releases only its own.
  readonly #inner = new WeakMap<DatabaseConnection, DatabaseConnection>()

  constructor(driver: Driver, location: string) {
    this.#driver = driver
    this.#location = location
  }

  #map = (error: unknown): never => {
    throw databaseFaultOf(error, this.#location) ?? error
  }

  #of(connection: DatabaseConnection): DatabaseConnection {
    return this.#inner.get(connection) ?? connection
  }

  init(): Promise<void> {
    return this.#driver.init().catch(this.#map)
  }

  async acquireConnection(): Promise<DatabaseConnection> {
    const inner = await this.#driver.acquireConnection().catch(this.#map)
    const map = this.#map
    const wrapped: DatabaseConnection = {
      executeQuery<R>(query: CompiledQuery): Promise<QueryResult<R>> {
        return inner.executeQuery<R>(query).catch(map)
      },
      async *streamQuery<R>(query: CompiledQuery, chunkSize?: number) {
        try {
          yield* inner.streamQuery<R>(query, chunkSize)
        } catch (error) {
          map(error)
        }
      },
    }
    this.#inner.set(wrapped, inner)
    return wrapped
  }

  beginTransaction(connection: DatabaseConnection, settings: TransactionSettings): Promise<void> {
    return this.#driver.beginTransaction(this.#of(connection), settings).catch(this.#map)
  }

  commitTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver.commitTransaction(this.#of(connection)).catch(this.#map)
  }

  rollbackTransaction(connection: DatabaseConnection): Promise<void> {
    return this.#driver.rollbackTransaction(this.#of(connection)).catch(this.#map)
  }

  async savepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.#driver.savepoint?.(this.#of(connection), name, compileQuery).catch(this.#map)
  }

  async rollbackToSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.#driver
      .rollbackToSavepoint?.(this.#of(connection), name, compileQuery)
      .catch(this.#map)
  }

  async releaseSavepoint(
    connection: DatabaseConnection,
    name: string,
    compileQuery: QueryCompiler['compileQuery'],
  ): Promise<void> {
    await this.#driver.releaseSavepoint?.(this.#of(connection), name, compileQuery).catch(this.#map)
  }

  releaseConnection(connection: DatabaseConnection): Promise<void> {
    return this.#driver.releaseConnection(this.#of(connection))
  }

  destroy(): Promise<void> {
    return this.#driver.destroy()
  }
}
