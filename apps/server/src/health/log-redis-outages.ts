import { redactUrl } from '@baton/core'
import type { FastifyBaseLogger } from 'fastify'
import type { Redis } from 'ioredis'

/**
 * Logs each outage of a Redis connection once: its first error, as a warning naming `what`
 * uses the connection and where Redis is (credentials removed), and `Redis is back` once the
 * connection is ready again. ioredis reports an error for every attempt to reconnect, a few a
 * second while Redis is away: logged each, they would bury everything else in the log.
 *
 * @example
 * logRedisOutages(client, { logger: app.log, what: 'A2A task buses', url })
 * // warn "A2A task buses: Redis unreachable; retrying" … info "A2A task buses: Redis is back"
 */
export function logRedisOutages(
  client: Redis,
  options: { logger: FastifyBaseLogger; what: string; url: string },
): void {
  const where = redactUrl(options.url)
  let down = false
  client.on('error', (error) => {
    if (down) return
    down = true
    options.logger.warn(
      { err: error, redis: where },
      `${options.what}: Redis unreachable; retrying`,
    )
  })
  client.on('ready', () => {
    if (down) options.logger.info({ redis: where }, `${options.what}: Redis is back`)
    down = false
  })
}
