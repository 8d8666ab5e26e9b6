import type { FastifyRequest } from 'fastify'
import { HttpError, NotFoundError } from '../http/http-errors'
import { hasScope, ownsOrAdministers } from './principal'

/**
 * May the request read what `owner` started (a run, a conversation)? Its owner and admins
 * may; everyone with the read scope too when reads are public (`BATON_PUBLIC_READS`).
 *
 * @example
 * if (!canRead(request, run.owner)) throw new NotFoundError('run', run.id)
 */
export function canRead(request: FastifyRequest, owner: string): boolean {
  return ownsOrAdministers(request.principal, owner) || request.readsArePublic
}

/**
 * Throws unless the request may read (`read`) or steer (`steer`: cancel, answer, resume,
 * allow, stop) what `owner` started: 404 to a caller who may not even read it (its
 * existence is not revealed), 403 to one who may read but not steer it.
 *
 * @example
 * assertOwned(request, run.owner, 'steer', 'run', run.id)
 */
export function assertOwned(
  request: FastifyRequest,
  owner: string,
  need: 'read' | 'steer',
  what: string,
  id: string,
): void {
  if (ownsOrAdministers(request.principal, owner)) return
  if (!canRead(request, owner)) throw new NotFoundError(what, id)
  if (need === 'steer') {
    throw new HttpError(
      403,
      'FORBIDDEN',
      `Only the principal that started ${what} "${id}" (or an admin) may do this.`,
      {
        what,
        id,
      },
    )
  }
}

/**
 * The owner to list for: undefined (everything) for admins and when reads are public,
 * otherwise the caller's own id.
 *
 * @example
 * await runs.list({ limit, offset, owner: listedOwner(request) })
 */
export function listedOwner(request: FastifyRequest): string | undefined {
  return hasScope(request.principal, 'admin') || request.readsArePublic
    ? undefined
    : request.principal.id
}
