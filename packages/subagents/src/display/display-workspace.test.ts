import { execFile } from 'node:child_process'
import { readFile } from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { createBudget } from '@baton/core'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { findExecutable } from '../adapters/find-executable'
import { pngSize } from '../browser/__fixtures__/chromium'
import { directive, makeTempRoot } from '../supervisor/__fixtures__/helpers'
import { makeAgent } from '../supervisor/__fixtures__/make-agent'
import { createSupervisor } from '../supervisor/create-supervisor'
import { isProcessAlive } from '../workspace/process-tree'
import { DISPLAY_TOOL_NAMES } from '../workspace/workspace-kind-tools'
import {
  createDisplayWorkspaceProvider,
  type DisplayWorkspaceProvider,
} from './create-display-workspace-provider'

const run = promisify(execFile)
const NEEDED = ['Xvfb', 'xdotool', 'import', 'convert', 'display']

function displayToolsAvailable(): boolean {
  const missing = NEEDED.filter((command) => !findExecutable(command))
  if (missing.length > 0 && process.env.CI === 'true') {
    throw new Error(`${missing.join(', ')} missing, and CI=true: the display tests must run.`)
  }
  if (missing.length > 0) {
    console.warn(`Skipping the display workspace tests: ${missing.join(', ')} not installed.`)
  }
  return missing.length === 0
}

// How many pure red pixels a screenshot holds (ImageMagick's histogram).
async function redPixels(file: string): Promise<number> {
  const { stdout } = await run('convert', [file, '-format', '%c', 'histogram:info:'])
  const line = stdout.split('\n').find((entry) => entry.includes('#FF0000'))
  return line ? Number(line.trim().split(':')[0]) : 0
}

// xev (Debian's x11-utils) prints each key event it receives: what reached the app, in order.
function xevAvailable(): boolean {
  if (findExecutable('xev')) return true
  if (process.env.CI === 'true')
    throw new Error('xev (Debian package x11-utils) is missing, and CI=true.')
  console.warn('Skipping the display input test: xev (Debian package x11-utils) is not installed.')
  return false
}

/** The key presses in xev's output, in order: each key's name and whether Control was held. */
function keyPresses(log: string): { key: string; control: boolean }[] {
  return log
    .split(/\n\s*\n/)
    .filter((event) => event.trimStart().startsWith('KeyPress event'))
    .map((event) => {
      const state = Number.parseInt(/state 0x([0-9a-f]+)/.exec(event)?.[1] ?? '0', 16)
      return {
        key: /keysym 0x[0-9a-f]+, ([^)]+)\)/.exec(event)?.[1] ?? '?',
        control: (state & 4) !== 0,
      }
    })
}

const agent = makeAgent({ tools: [...DISPLAY_TOOL_NAMES] })
// A red window of 200 × 150: ImageMagick's viewer showing a solid colour.
const apps = { viewer: { command: 'display', args: ['-size', '200x150', 'xc:red'] } }

let root: string
let remove: () => Promise<void>
let provider: DisplayWorkspaceProvider | undefined

describe.runIf(displayToolsAvailable())('display workspaces', () => {
  beforeEach(async () => ({ root, remove } = await makeTempRoot()))
  afterEach(async () => {
    await provider?.close()
    await remove()
  })

  it('gives a sub-agent a display of its own to launch an app on, screenshot and drive', async () => {
    provider = createDisplayWorkspaceProvider({ apps, screen: '640x480x24' })
    const supervisor = createSupervisor({
      agent,
      budget: createBudget({ calls: 20 }, { name: 'lead' }),
      workspace: { kind: 'directory', root },
      workspaceProviders: { display: provider },
    })
    const id = supervisor.delegate(
      `${directive('screenshot')}${directive('launch', { app: 'viewer' })}${directive('click', { x: 320, y: 240 })}${directive('type', { text: 'hi' })}${directive('key', { combo: 'shift+Tab' })}`,
      { workspace: 'desktop' },
    )
    const report = (await supervisor.waitAgents([id]))?.[id]
    expect(report?.status, report?.error).toBe('done')
    const [display] = provider.running()
    expect(display?.display).toMatch(/^:\d+$/)
    expect(display?.appPids).toHaveLength(1)
    // The pointer is where the click put it, on this display.
    const env = { ...process.env, DISPLAY: display!.display }
    const { stdout } = await run('xdotool', ['getmouselocation'], { env })
    expect(stdout).toMatch(/^x:320 y:240 /)
    // The first screenshot is the empty screen; one taken once the window is up shows it.
    const before = path.join(report!.directory, 'screenshots', 'screen-1.png')
    expect(pngSize(await readFile(before))).toEqual({ width: 640, height: 480 })
    expect(await redPixels(before)).toBe(0)
    // The window may take a moment to map: screenshots until it shows (or ten tries).
    let red = 0
    let again: Awaited<ReturnType<typeof supervisor.report>> | undefined
    for (let shot = 2; shot < 12 && red !== 200 * 150; shot += 1) {
      supervisor.sendAgent(id, directive('screenshot'))
      again = (await supervisor.waitAgents([id]))?.[id]
      red = await redPixels(path.join(again!.directory, 'screenshots', `screen-${shot}.png`))
    }
    expect(red).toBe(200 * 150)
    expect(again?.files).toEqual(expect.arrayContaining([path.join('screenshots', 'screen-1.png')]))
    await supervisor.cleanup()
  })

  it.runIf(xevAvailable())(
    'delivers typed text and a key combination to the app under the pointer',
    async () => {
      // xev's window fills the screen; its output goes to keys.log in the sub-agent's directory.
      const keys = {
        command: 'sh',
        args: ['-c', 'exec xev -event keyboard -geometry 640x480+0+0 > keys.log'],
      }
      provider = createDisplayWorkspaceProvider({ apps: { keys }, screen: '640x480x24' })
      const supervisor = createSupervisor({
        agent,
        budget: createBudget({ calls: 20 }, { name: 'lead' }),
        workspace: { kind: 'directory', root },
        workspaceProviders: { display: provider },
      })
      const id = supervisor.delegate(directive('launch', { app: 'keys' }), {
        workspace: 'display',
      })
      const launched = (await supervisor.waitAgents([id]))?.[id]
      expect(launched?.status, launched?.error).toBe('done')
      const [display] = provider.running()
      const env = { ...process.env, DISPLAY: display!.display }
      // Input sent before the window is mapped reaches no one: wait until it is.
      await run('xdotool', ['search', '--sync', '--onlyvisible', '--name', 'Event Tester'], {
        env,
        timeout: 15_000,
      })
      supervisor.sendAgent(
        id,
        `${directive('click', { x: 320, y: 240 })}${directive('type', { text: 'hi there' })}${directive('key', { combo: 'ctrl+s' })}`,
      )
      const report = (await supervisor.waitAgents([id]))?.[id]
      expect(report?.status, report?.error).toBe('done')
      const log = path.join(report!.directory, 'keys.log')
      // xev writes each event as it comes; the last one (s under Control) ends the wait.
      let presses: ReturnType<typeof keyPresses> = []
      for (let tries = 0; tries < 50; tries += 1) {
        presses = keyPresses(await readFile(log, 'utf8'))
        if (presses.some((press) => press.key === 's' && press.control)) break
        await new Promise((resolve) => setTimeout(resolve, 100))
      }
      const typed = presses.filter((press) => !press.control && !press.key.startsWith('Control'))
      expect(typed.map((press) => press.key)).toEqual(['h', 'i', 'space', 't', 'h', 'e', 'r', 'e'])
      // The combination: Control goes down, then s with Control held.
      expect(presses.slice(-2)).toEqual([
        { key: 'Control_L', control: false },
        { key: 's', control: true },
      ])
      await supervisor.cleanup()
    },
  )

  it('launches only the apps it was given, before starting anything', async () => {
    provider = createDisplayWorkspaceProvider({ apps })
    const workspace = provider.create({ id: 'lead', directory: root })
    const tools = workspace.tools!()
    const call = (name: string, input: object) =>
      tools[name]!.execute!(input, { toolCallId: name, messages: [] })
    await expect(call('launch', { app: 'sh' })).rejects.toMatchObject({
      code: 'DISPLAY_APP_NOT_ALLOWED',
      details: { app: 'sh', allowed: ['viewer'] },
    })
    await expect(call('launch', { app: 'toString' })).rejects.toMatchObject({
      code: 'DISPLAY_APP_NOT_ALLOWED',
    })
    expect(provider.running()).toEqual([])
  })

  it('ends the display and every app on it when the sub-agent is cancelled', async () => {
    provider = createDisplayWorkspaceProvider({ apps, screen: '640x480x24' })
    const supervisor = createSupervisor({
      agent,
      budget: createBudget({ calls: 20 }, { name: 'lead' }),
      workspace: { kind: 'directory', root },
      workspaceProviders: { display: provider },
    })
    const id = supervisor.delegate(
      `${directive('launch', { app: 'viewer' })}${directive('launch', { app: 'viewer' })}${directive('ask_caller', { question: 'keep going?' })}`,
      { workspace: 'display' },
    )
    const asking = (await supervisor.waitAgents([id]))?.[id]
    expect(asking?.status, asking?.error).toBe('asking')
    const [display] = provider.running()
    const pids = [display!.xvfbPid!, ...display!.appPids]
    expect(pids).toHaveLength(3)
    expect(pids.every(isProcessAlive)).toBe(true)
    const report = await supervisor.cancelAgent(id)
    expect(report.status).toBe('cancelled')
    // Gone by the time the cancel returns, checked by PID.
    expect(pids.filter(isProcessAlive)).toEqual([])
    expect(provider.running()).toEqual([])
  })

  it('is unavailable, naming the program, where Xvfb is missing', () => {
    provider = createDisplayWorkspaceProvider({ xvfb: '/nonexistent/Xvfb' })
    const supervisor = createSupervisor({
      agent,
      budget: createBudget({ calls: 20 }, { name: 'lead' }),
      workspace: { kind: 'directory', root },
      workspaceProviders: { display: provider },
    })
    expect(() => supervisor.delegate('draw', { workspace: 'apps' })).toThrow(
      expect.objectContaining({
        code: 'WORKSPACE_UNAVAILABLE',
        message: expect.stringContaining('/nonexistent/Xvfb (Debian package xvfb) not found'),
      }),
    )
  })
})
