import { OldestFirst } from '@baton/core'

/** How many credentials are remembered at once (the oldest go first past it). */
const MAX_REMEMBERED = 10_000

/**
 * The `Authorization` headers this process has seen authenticate, and whose they are: what
 * the rate limit counts a request against before authentication runs (its hook comes first,
 * so a flood is refused before any look-up). A credential proven once is counted per
 * principal (each API key its own allowance, however many share an address); any other
 * request (anonymous, a wrong or not yet proven credential) per client address, so making up
 * credentials buys no fresh allowance.
 *
 * @example
 * const credentials = new KnownCredentials()
 * credentials.remember('Bearer bk_…', 'key:ops')
 * credentials.principalOf('Bearer bk_…') // 'key:ops'
 */
export class KnownCredentials {
  readonly #byHeader = new Map<string, string>()
  readonly #oldestFirst = new OldestFirst(this.#byHeader)

  /** Notes that `header` authenticated as the principal `principalId`. */
  remember(header: string, principalId: string): void {
    if (this.#byHeader.get(header) === principalId) return
    this.#byHeader.set(header, principalId)
    this.#oldestFirst.trimTo(MAX_REMEMBERED)
  }

  /** The principal `header` authenticated as, if this process has seen it do so. */
  principalOf(header: string | undefined): string | undefined {
    return header === undefined ? undefined : this.#byHeader.get(header)
  }

  /** Forgets them all (a key was made or revoked here). */
  forget(): void {
    this.#byHeader.clear()
  }
}
