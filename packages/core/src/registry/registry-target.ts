import { z } from 'zod'
import { redactUrl } from '../errors/redact-url'
import type { Wallet } from '../wallet/parse-wallet'

/** Where and how to ask the registry, with the credentials kept out of the URL. */
export type RegistryTarget = {
  /** The base URL without user info (fetch refuses URLs that carry credentials). */
  base: URL
  /** Basic credentials taken from the base URL's user info, sent as a header instead. */
  authorization: string | undefined
  /** Values that must never appear in an error (password, user, secret query values). */
  secrets: string[]
}

export const RegistryBaseUrl = z
  .string()
  .url('must be an absolute URL')
  .refine(
    (value) => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol),
    'must be an http(s) URL',
  )

/** Splits a registry base URL into the URL to call and the credentials to send. */
export function registryTarget(baseUrl: string): RegistryTarget {
  const base = new URL(baseUrl)
  const username = decoded(base.username)
  const password = decoded(base.password)
  base.username = ''
  base.password = ''
  base.hash = ''
  const secrets = [username, password]
  for (const [key, value] of base.searchParams) {
    if (/key|token|secret|password|auth|sig/i.test(key)) secrets.push(value)
  }
  return {
    base,
    authorization: username || password ? `Basic ${base64(`${username}:${password}`)}` : undefined,
    secrets: secrets.filter((secret) => secret.length > 0),
  }
}

/** `GET {base}/agent/{wallet}`, keeping the base's path and query. */
export function agentUrl(target: RegistryTarget, wallet: Wallet): URL {
  const url = new URL(target.base.href)
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/agent/${wallet}`
  return url
}

/** The URL as it may be shown in an error: no user info, secret query values masked. */
export function shownUrl(url: URL): string {
  return redactUrl(url)
}

/** Masks every secret of the target in free text (e.g. a network error's message). */
export function scrubSecrets(target: RegistryTarget, text: string): string {
  let result = text
  for (const secret of target.secrets) result = result.split(secret).join('***')
  return result
}

/** User info as typed; a stray `%` that is not an escape is kept as it is. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

function base64(text: string): string {
  // btoa takes Latin-1 only; encode as UTF-8 bytes first so any password works.
  let binary = ''
  for (const byte of new TextEncoder().encode(text)) binary += String.fromCharCode(byte)
  return btoa(binary)
}
