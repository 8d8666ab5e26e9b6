export { createDatabase } from './create-database'
export { findPostgresBinaries, type PostgresCluster, startPostgres } from './start-postgres'
