import { BatonError, socketFailureOf } from '@baton/core'

/**
 * The database does not answer (refused, dropped, shutting down, or too slow): the request
 * can be tried again once it is back.
 *
 * What a client is told names the reason, never where the database is (its host, port and
 * name, or the data folder's path are the operator's, not every caller's): `location` is on
 * the error, for the server's log.
 */
export class DatabaseUnavailableError extends BatonError {
  override name = 'DatabaseUnavailableError'
  /** The database's URL without credentials, or the data folder: logged, never answered. */
  readonly location: string
  constructor(options: { location: string; reason: string; cause?: unknown }) {
    super('DATABASE_UNAVAILABLE', `The database is unavailable: ${options.reason}.`, {
      details: { reason: options.reason },
      cause: options.cause,
    })
    this.location = options.location
  }
}

/**
 * The database answers but cannot store (its disk is full or read-only, or it refuses writes):
 * nothing of the request was stored, and it can be tried again once it can.
 */
export class StorageUnavailableError extends BatonError {
  override name = 'StorageUnavailableError'
  /** The database's URL without credentials, or the data folder: logged, never answered. */
  readonly location: string
  constructor(options: { location: string; reason: string; cause?: unknown }) {
    super('STORAGE_UNAVAILABLE', `The database cannot store: ${options.reason}.`, {
      details: { reason: options.reason },
      cause: options.cause,
    })
    this.location = options.location
  }
}

// SQLSTATEs of a server going away or not taking connections (class 08: connection exception).
const unavailableStates = new Set(['57P01', '57P02', '57P03', '53300'])
// What pg and Kysely say when a connection died or timed out (they carry no code).
const unavailableMessages =
  /Connection terminated|timeout exceeded when trying to connect|Query read timeout|connection error|not queryable|connection has been discarded|Connection refused/i
const storageMessages = /No space left on device|Read-only file system|Disk quota exceeded/i

/**
 * The typed error for a database failure that is the database's (or its disk's) and not the
 * query's; undefined for any other error (a constraint, a syntax error), which stays as it is.
 *
 * @example
 * const typed = databaseFaultOf(error, 'postgres://127.0.0.1:5432/baton') // DatabaseUnavailableError
 */
export function databaseFaultOf(
  error: unknown,
  location: string,
): DatabaseUnavailableError | StorageUnavailableError | undefined {
  if (error instanceof DatabaseUnavailableError || error instanceof StorageUnavailableError) {
    return error
  }
  if (typeof error !== 'object' || error === null) return undefined
  const { code, message } = error as { code?: unknown; message?: unknown }
  const text = typeof message === 'string' ? message : ''
  if (code === '53100' || code === 'ENOSPC' || code === 'EROFS' || code === 'EDQUOT') {
    return new StorageUnavailableError({
      location,
      reason: reasonOf(text, 'no space left'),
      cause: error,
    })
  }
  // A database that reads but refuses writes (a standby after a failover, or made read-only).
  if (code === '25006') {
    return new StorageUnavailableError({
      location,
      reason: reasonOf(text, 'the database is read-only'),
      cause: error,
    })
  }
  if (storageMessages.test(text)) {
    return new StorageUnavailableError({
      location,
      reason: reasonOf(text, 'no space left'),
      cause: error,
    })
  }
  // Told in words of its own: the socket's message names the address.
  const socket = socketFailureOf(error)
  if (socket) return new DatabaseUnavailableError({ location, reason: socket, cause: error })
  const isUnavailable =
    (typeof code === 'string' && (unavailableStates.has(code) || code.startsWith('08'))) ||
    unavailableMessages.test(text)
  if (isUnavailable) {
    return new DatabaseUnavailableError({
      location,
      reason: reasonOf(text, String(code)),
      cause: error,
    })
  }
  return undefined
}

/** True when `error` (or anything in its cause chain) is a database or storage fault. */
export function isDatabaseFault(error: unknown): boolean {
  const seen = new Set<unknown>()
  let current = error
  while (typeof current === 'object' && current !== null && !seen.has(current)) {
    seen.add(current)
    if (current instanceof DatabaseUnavailableError || current instanceof StorageUnavailableError) {
      return true
    }
    const code = (current as { code?: unknown }).code
    if (code === 'DATABASE_UNAVAILABLE' || code === 'STORAGE_UNAVAILABLE') return true
    current = (current as { cause?: unknown }).cause
  }
  return false
}

function reasonOf(message: string, fallback: string): string {
  const line = message.split('\n')[0]?.trim().replace(/\.$/, '')
  return line ? line : fallback
}
