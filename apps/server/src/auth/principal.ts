/** What a principal may do: read, start and steer runs, register agents, administer. */
export const SCOPES = ['read', 'run', 'register', 'admin'] as const
export type Scope = (typeof SCOPES)[number]

/**
 * Who a request comes from: the holder of the admin token (`BATON_API_TOKEN`), an API key,
 * or nobody in particular. `id` is what ownership records (`admin`, `key:<id>`, `anonymous`).
 */
export type Principal = {
  kind: 'admin' | 'key' | 'anonymous'
  id: string
  name: string
  scopes: readonly Scope[]
}

export const adminPrincipal: Principal = {
  kind: 'admin',
  id: 'admin',
  name: 'admin',
  scopes: SCOPES,
}

/**
 * The anonymous caller: on a server without a token or keys it may do all but administer
 * (the playground and the demo need no key); otherwise it may read when reads are public.
 *
 * @example
 * anonymousPrincipal({ authConfigured: true, publicReads: false }).scopes // []
 */
export function anonymousPrincipal(options: {
  authConfigured: boolean
  publicReads: boolean
}): Principal {
  const scopes: Scope[] = !options.authConfigured
    ? ['read', 'run', 'register']
    : options.publicReads
      ? ['read']
      : []
  return { kind: 'anonymous', id: 'anonymous', name: 'anonymous', scopes }
}

/**
 * True when the principal has the scope (the admin scope includes every other).
 *
 * @example
 * if (!hasScope(request.principal, 'run')) throw forbidden('run')
 */
export function hasScope(principal: Principal, scope: Scope): boolean {
  return principal.scopes.includes(scope) || principal.scopes.includes('admin')
}

/**
 * May the principal steer (cancel, answer, resume) what `owner` started? Its owner and
 * admins may; nobody else.
 *
 * @example
 * if (!ownsOrAdministers(request.principal, run.owner)) throw new NotFoundError('run', run.id)
 */
export function ownsOrAdministers(principal: Principal, owner: string): boolean {
  return principal.id === owner || hasScope(principal, 'admin')
}
