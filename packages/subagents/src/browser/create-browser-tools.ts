import { mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { type ToolSet, tool } from 'ai'
import type { Page, Request } from 'playwright-core'
import { z } from 'zod'
import { sessionBounded } from '../workspace/session-bounded'
import { BrowserActionError, BrowserNavigationRefusedError } from './browser-errors'
import type { BrowserSession } from './browser-session'
import type { OriginPolicy } from './origin-policy'
import { REFUSED_HEADER } from './origin-proxy'

// Made once: a zod schema costs far more to build than the tools around it.
const OpenInput = z.object({
  url: z.string().min(1),
  newTab: z.boolean().optional(),
})
const Empty = z.object({})
const ClickInput = z.object({ ref: z.string().min(1) })
const TypeInput = z.object({
  ref: z.string().min(1),
  text: z.string(),
  submit: z.boolean().optional(),
})
const TabsInput = z.object({ select: z.number().int().nonnegative().optional() })
const CloseInput = z.object({ tab: z.number().int().nonnegative().optional() })

export type BrowserToolsOptions = {
  session: () => Promise<BrowserSession>
  policy: OriginPolicy
  /** Throws `WorkspaceBusyError` while the tabs are lent to a `share` sub-agent. */
  assertUsable: (action: string) => void
  timeoutMs: number
  /** How long opening the session (and launching the browser) may take. */
  openTimeoutMs: number
  maxTextChars: number
  maxSnapshotChars: number
  /** Sends a screenshot to the model as an image as well as a file (default true). */
  imagesToModel: boolean
}

/**
 * The tools of a browser workspace over one session: `open_page`, `read_page`, `click`, `type`,
 * `screenshot`, `back`, `tabs`, `close_tab`. Each call is refused while the tabs are lent, ends
 * within the tool timeout, and stops at once when the sub-agent's budget is aborted.
 *
 * @example
 * const tools = createBrowserTools({ session, policy, assertUsable, timeoutMs: 15_000, ... })
 */
export function createBrowserTools(options: BrowserToolsOptions): ToolSet {
  const { policy, timeoutMs } = options
  const bounded = sessionBounded(options)
  const actOn = async <T>(
    session: BrowserSession,
    name: string,
    ref: string,
    action: (page: Page) => Promise<T>,
  ) => {
    const page = await session.page()
    // An unknown ref fails now, not after waiting the whole timeout for it to appear.
    if (
      (await page
        .getByRef(ref)
        .count()
        .catch(() => 0)) === 0
    ) {
      throw new BrowserActionError({
        tool: name,
        reason: `no element ${ref} on the page (refs come from the last read_page; read it again after it changed)`,
      })
    }
    try {
      return await action(page)
    } catch (cause) {
      const first = (cause as Error).message?.split('\n')[0] ?? String(cause)
      throw new BrowserActionError({
        tool: name,
        reason: `element ${ref} (from the last read_page) could not be used: ${first}`,
        cause,
      })
    }
  }
  const where = async (session: BrowserSession, page: Page) => ({
    tab: session.pages.indexOf(page),
    url: page.url(),
    title: await page.title().catch(() => ''),
  })

  return {
    open_page: tool({
      description:
        'Opens a URL in the current tab (or a new one with newTab). Only the allowed origins can be opened.',
      inputSchema: OpenInput,
      execute: ({ url, newTab }, { abortSignal }) =>
        bounded('open_page', abortSignal, async (session) => {
          const reason = policy.refusal(url)
          if (reason !== undefined) throw new BrowserNavigationRefusedError({ url, reason })
          if (newTab) session.current = await session.context.newPage()
          const page = await session.page()
          const before = session.refusedCount
          // The origins this navigation requested (each redirect hop too). The proxy also sees
          // the browser's own requests (Chromium's autofill, say), which are not the page's.
          const navigated = new Set<string>()
          const onRequest = (request: Request) => {
            if (!request.isNavigationRequest()) return
            try {
              navigated.add(new URL(request.url()).host)
            } catch {
              // Not a URL with a host: never refused by the proxy either.
            }
          }
          page.on('request', onRequest)
          // The first request of this navigation refused since it began: the page's own (a
          // favicon of the refused origin may follow it).
          const refusedOnTheWay = () =>
            session.refusals.find((entry) => {
              if (entry.seq <= before) return false
              try {
                return navigated.has(new URL(entry.url).host)
              } catch {
                return false
              }
            })
          const refusal = (
            refused: NonNullable<ReturnType<typeof refusedOnTheWay>> | undefined,
            fallback: string,
          ) =>
            new BrowserNavigationRefusedError({
              url: refused?.url ?? fallback,
              reason: `${refused?.reason ?? 'not allowed'} (reached from ${url})`,
            })
          let response: Awaited<ReturnType<Page['goto']>>
          try {
            response = await page.goto(url, { waitUntil: 'domcontentloaded' })
          } catch (error) {
            // An https redirect that led out: its tunnel was refused, and the load failed.
            const refused = refusedOnTheWay()
            if (refused) throw refusal(refused, url)
            throw error
          } finally {
            page.off('request', onRequest)
          }
          // A plain-http redirect that led out was answered by the proxy's refusal.
          if (response?.headers()[REFUSED_HEADER] !== undefined)
            throw refusal(refusedOnTheWay(), response.url())
          return { ...(await where(session, page)), status: response?.status() ?? null }
        }),
    }),
    read_page: tool({
      description:
        'Reads the current tab: its text and an accessibility snapshot whose elements carry refs (ref=e5) for click and type.',
      inputSchema: Empty,
      execute: (_input, { abortSignal }) =>
        bounded('read_page', abortSignal, async (session) => {
          const page = await session.page()
          const [text, snapshot] = await Promise.all([
            page
              .locator('body')
              // biome-ignore lint/performance/useDomNodeTextContent: the text a person sees (no scripts, no hidden parts) is what the model reads
              .innerText({ timeout: timeoutMs })
              .catch(() => ''),
            page.ariaSnapshot({ mode: 'ai', timeout: timeoutMs }),
          ])
          const refused = session.refusals.slice(-5)
          return {
            ...(await where(session, page)),
            text: clip(text, options.maxTextChars),
            snapshot: clip(snapshot, options.maxSnapshotChars),
            truncated:
              text.length > options.maxTextChars || snapshot.length > options.maxSnapshotChars,
            ...(refused.length > 0 ? { refusedRequests: refused } : {}),
          }
        }),
    }),
    click: tool({
      description: 'Clicks the element with this ref (from the last read_page).',
      inputSchema: ClickInput,
      execute: ({ ref }, { abortSignal }) =>
        bounded('click', abortSignal, (session) =>
          actOn(session, 'click', ref, async (page) => {
            await page.getByRef(ref).click({ timeout: timeoutMs })
            return { clicked: ref, url: page.url() }
          }),
        ),
    }),
    type: tool({
      description:
        'Types text into the field with this ref (from the last read_page), replacing what it held; submit presses Enter after.',
      inputSchema: TypeInput,
      execute: ({ ref, text, submit }, { abortSignal }) =>
        bounded('type', abortSignal, (session) =>
          actOn(session, 'type', ref, async (page) => {
            const field = page.getByRef(ref)
            await field.fill(text, { timeout: timeoutMs })
            if (submit) await field.press('Enter', { timeout: timeoutMs })
            return { typed: ref, submitted: submit === true, url: page.url() }
          }),
        ),
    }),
    screenshot: tool({
      description: 'Takes a screenshot of the current tab, saved as a PNG in your directory.',
      inputSchema: Empty,
      execute: (_input, { abortSignal }) =>
        bounded('screenshot', abortSignal, async (session) => {
          const page = await session.page()
          const image = await page.screenshot({ type: 'png', timeout: timeoutMs })
          session.screenshots += 1
          const file = path.join('screenshots', `screenshot-${session.screenshots}.png`)
          await mkdir(path.join(session.directory, 'screenshots'), { recursive: true })
          await writeFile(path.join(session.directory, file), image)
          return { path: file, bytes: image.length, url: page.url() }
        }),
      toModelOutput: async ({ output }) => {
        const shot = output as { path: string; bytes: number; url: string }
        const text = { type: 'text' as const, text: JSON.stringify(shot) }
        if (!options.imagesToModel) return { type: 'content', value: [text] }
        const session = await options.session()
        const data = (await readFile(path.join(session.directory, shot.path))).toString('base64')
        return {
          type: 'content',
          value: [text, { type: 'image-data', data, mediaType: 'image/png' }],
        }
      },
    }),
    back: tool({
      description: 'Goes back one page in the current tab.',
      inputSchema: Empty,
      execute: (_input, { abortSignal }) =>
        bounded('back', abortSignal, async (session) => {
          const page = await session.page()
          await page.goBack({ waitUntil: 'domcontentloaded' })
          return where(session, page)
        }),
    }),
    tabs: tool({
      description: 'Lists your tabs; select makes that tab the current one.',
      inputSchema: TabsInput,
      execute: ({ select }, { abortSignal }) =>
        bounded('tabs', abortSignal, async (session) => {
          if (select !== undefined) session.current = tabAt(session, select, 'tabs')
          const current = session.current
          return {
            tabs: await Promise.all(
              session.pages.map(async (page) => ({
                ...(await where(session, page)),
                current: page === current,
              })),
            ),
          }
        }),
    }),
    close_tab: tool({
      description: 'Closes a tab (the current one by default).',
      inputSchema: CloseInput,
      execute: ({ tab }, { abortSignal }) =>
        bounded('close_tab', abortSignal, async (session) => {
          const page = tab === undefined ? await session.page() : tabAt(session, tab, 'close_tab')
          await page.close()
          return { closed: tab ?? 'current', open: session.pages.length }
        }),
    }),
  }
}

function tabAt(session: BrowserSession, index: number, tool: string): Page {
  const page = session.pages[index]
  if (!page) {
    throw new BrowserActionError({
      tool,
      reason: `there is no tab ${index} (${session.pages.length} open)`,
    })
  }
  return page
}

function clip(text: string, max: number): string {
  return text.length > max
    ? `${text.slice(0, max)}\n[… ${text.length - max} more characters]`
    : text
}
