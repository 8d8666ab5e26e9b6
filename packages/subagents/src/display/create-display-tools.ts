import { mkdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { type ToolSet, tool } from 'ai'
import { z } from 'zod'
import { sessionBounded } from '../workspace/session-bounded'
import { DisplayAppNotAllowedError } from './display-errors'
import type { DisplaySession } from './display-session'

/** A program the caller allows on the display: the model picks it by name, never the command. */
export type DisplayApp = { command: string; args?: string[] }

// Made once: a zod schema costs far more to build than the tools around it.
const Empty = z.object({})
const ClickInput = z.object({
  x: z.number().int().nonnegative(),
  y: z.number().int().nonnegative(),
  button: z.union([z.literal(1), z.literal(2), z.literal(3)]).optional(),
})
const TypeInput = z.object({ text: z.string().min(1).max(2000) })
// xdotool key names joined by +, several combos by spaces: `ctrl+s`, `Return`, `alt+F4 Tab`.
const KeyInput = z.object({
  combo: z.string().regex(/^[A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*( [A-Za-z0-9_]+(\+[A-Za-z0-9_]+)*)*$/, {
    message: 'must be xdotool key names joined by + (ctrl+s, Return, alt+F4)',
  }),
})
const LaunchInput = z.object({ app: z.string().min(1) })

export type DisplayToolsOptions = {
  session: () => Promise<DisplaySession>
  assertUsable: (action: string) => void
  apps: Readonly<Record<string, DisplayApp>>
  xdotool: string
  /** ImageMagick's `import`. */
  importCommand: string
  timeoutMs: number
  openTimeoutMs: number
  imagesToModel: boolean
}

/**
 * The tools of a display workspace: `screenshot` (a PNG of the whole screen in the directory),
 * `click {x, y}`, `type {text}`, `key {combo}` (xdotool on its display), and `launch {app}`
 * (one of the apps the caller allows, by name).
 *
 * @example
 * const tools = createDisplayTools({ session, assertUsable, apps: { editor: { command: 'mousepad' } }, ... })
 */
export function createDisplayTools(options: DisplayToolsOptions): ToolSet {
  const { timeoutMs, xdotool } = options
  const bounded = sessionBounded(options)
  return {
    screenshot: tool({
      description: 'Takes a screenshot of the whole display, saved as a PNG in your directory.',
      inputSchema: Empty,
      execute: (_input, { abortSignal }) =>
        bounded('screenshot', abortSignal, async (session) => {
          session.screenshots += 1
          const file = path.join('screenshots', `screen-${session.screenshots}.png`)
          const directory = path.dirname(path.join(session.directory, file))
          await mkdir(directory, { recursive: true })
          await session.run(
            'screenshot',
            options.importCommand,
            [
              '-display',
              session.display,
              '-window',
              'root',
              `png:${path.join(session.directory, file)}`,
            ],
            timeoutMs,
          )
          return { path: file, display: session.display }
        }),
      toModelOutput: async ({ output }) => {
        const shot = output as { path: string; display: string }
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
    click: tool({
      description: 'Moves the pointer to (x, y) on the display and clicks (button 1 unless given).',
      inputSchema: ClickInput,
      execute: ({ x, y, button }, { abortSignal }) =>
        bounded('click', abortSignal, async (session) => {
          await session.run(
            'click',
            xdotool,
            ['mousemove', String(x), String(y), 'click', String(button ?? 1)],
            timeoutMs,
          )
          return { clicked: { x, y } }
        }),
    }),
    type: tool({
      description: 'Types text into the focused window.',
      inputSchema: TypeInput,
      execute: ({ text }, { abortSignal }) =>
        bounded('type', abortSignal, async (session) => {
          await session.run('type', xdotool, ['type', '--delay', '10', '--', text], timeoutMs)
          return { typed: text.length }
        }),
    }),
    key: tool({
      description: 'Presses a key combination in the focused window (ctrl+s, Return, alt+F4).',
      inputSchema: KeyInput,
      execute: ({ combo }, { abortSignal }) =>
        bounded('key', abortSignal, async (session) => {
          await session.run('key', xdotool, ['key', '--', ...combo.split(' ')], timeoutMs)
          return { pressed: combo }
        }),
    }),
    launch: tool({
      description: `Starts an app on the display. Allowed: ${Object.keys(options.apps).join(', ') || 'none'}.`,
      inputSchema: LaunchInput,
      execute: async ({ app }, { abortSignal }) => {
        // Refused before a display is started for it.
        const chosen = Object.hasOwn(options.apps, app) ? options.apps[app] : undefined
        if (!chosen)
          throw new DisplayAppNotAllowedError({ app, allowed: Object.keys(options.apps) })
        return bounded('launch', abortSignal, async (session) => {
          const pid = session.launch(chosen.command, chosen.args ?? [])
          return { app, pid, display: session.display }
        })
      },
    }),
  }
}
