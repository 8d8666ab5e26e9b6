/**
 * Strips credentials (user info and secret-looking query parameters) from a URL so it can
 * appear in an error or a log line.
 *
 * @example
 * redactUrl('https://user:pw@registry.example/agent?token=abc') // 'https://registry.example/agent?token=***'
 */
export function redactUrl(input: string | URL): string {
  let url: URL
  try {
    url = new URL(String(input))
  } catch {
    return '[invalid url]'
  }
  // "admin:pw@host" without a scheme parses as scheme "admin:" with the password in its path.
  if (!url.host && url.href.includes('@')) return '[invalid url]'
  url.username = ''
  url.password = ''
  for (const key of [...url.searchParams.keys()]) {
    if (/key|token|secret|password|auth|sig/i.test(key)) url.searchParams.set(key, '***')
  }
  return url.toString()
}
