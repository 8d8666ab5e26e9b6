import { type ChildProcess, execFile, spawn } from 'node:child_process'
import type { Readable } from 'node:stream'
import { stopGroup } from '../workspace/stop-group'
import { DisplayActionError } from './display-errors'

/** A program started on a display, in a process group of its own. */
type Started = { child: ChildProcess; exited: Promise<unknown> }

export type DisplaySessionOptions = {
  xvfb: string
  screen: string
  directory: string
  startTimeoutMs: number
  killGraceMs: number
}

/**
 * One sub-agent's X display: an Xvfb of its own on a free display number (Xvfb picks it and
 * writes it to `-displayfd`, so two starting at once never take the same one), and every
 * program started on it, each in a process group of its own. `close` ends the programs, then
 * the display, and resolves once they are gone.
 */
export class DisplaySession {
  readonly display: string
  readonly #xvfb: Started
  readonly #apps: Started[] = []
  readonly #killGraceMs: number
  /** The workspace directory: programs start there, screenshots land there. */
  readonly directory: string
  #closing: Promise<void> | undefined
  screenshots = 0

  private constructor(display: string, xvfb: Started, options: DisplaySessionOptions) {
    this.display = display
    this.#xvfb = xvfb
    this.#killGraceMs = options.killGraceMs
    this.directory = options.directory
  }

  /**
   * Starts Xvfb and waits for the display number it chose.
   *
   * @example
   * const session = await DisplaySession.start({ xvfb: 'Xvfb', screen: '1280x800x24', directory, startTimeoutMs: 10_000, killGraceMs: 1000 })
   * session.display // ':3'
   */
  static async start(options: DisplaySessionOptions): Promise<DisplaySession> {
    const child = spawn(
      options.xvfb,
      ['-displayfd', '3', '-screen', '0', options.screen, '-nolisten', 'tcp'],
      { detached: true, stdio: ['ignore', 'ignore', 'pipe', 'pipe'] },
    )
    const exited = new Promise((resolve) => child.once('close', resolve))
    const started = { child, exited }
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr = (stderr + chunk.toString()).slice(-2000)
    })
    try {
      const number = await readDisplayNumber(child, options.startTimeoutMs, () => stderr)
      return new DisplaySession(`:${number}`, started, options)
    } catch (error) {
      await stopGroup(child, exited, options.killGraceMs)
      throw error
    }
  }

  /** The process ids of Xvfb and of every program still running on the display. */
  get pids(): { xvfb: number | undefined; apps: number[] } {
    return {
      xvfb: this.#xvfb.child.pid,
      apps: this.#apps
        .filter(({ child }) => child.exitCode === null && child.signalCode === null)
        .map(({ child }) => child.pid)
        .filter((pid): pid is number => pid !== undefined),
    }
  }

  /** The environment of a program on this display: nothing of the caller's but PATH and HOME. */
  environment(): NodeJS.ProcessEnv {
    return {
      DISPLAY: this.display,
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      HOME: this.directory,
    }
  }

  /** Starts `command` on the display, in the workspace directory, in a group of its own. */
  launch(command: string, args: readonly string[]): number {
    const child = spawn(command, [...args], {
      cwd: this.directory,
      detached: true,
      env: this.environment(),
      stdio: 'ignore',
    })
    const exited = new Promise((resolve) => child.once('close', resolve))
    child.on('error', () => {})
    this.#apps.push({ child, exited })
    if (child.pid === undefined) throw new Error(`${command} could not be started`)
    return child.pid
  }

  /** Runs a short command (xdotool, import) against the display and waits for it. */
  run(tool: string, command: string, args: readonly string[], timeoutMs: number): Promise<string> {
    return new Promise((resolve, reject) => {
      execFile(
        command,
        [...args],
        { env: this.environment(), timeout: timeoutMs, killSignal: 'SIGKILL' },
        (error, stdout, stderr) => {
          if (!error) return resolve(stdout)
          reject(
            new DisplayActionError({
              tool,
              reason: `${command} failed: ${(stderr || error.message).trim().split('\n')[0]}`,
              cause: error,
            }),
          )
        },
      )
    })
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      await Promise.all(
        this.#apps.map(({ child, exited }) => stopGroup(child, exited, this.#killGraceMs)),
      )
      await stopGroup(this.#xvfb.child, this.#xvfb.exited, this.#killGraceMs)
    })()
    return this.#closing
  }
}

function readDisplayNumber(
  child: ChildProcess,
  timeoutMs: number,
  stderr: () => string,
): Promise<number> {
  const pipe = child.stdio[3] as Readable | null
  return new Promise((resolve, reject) => {
    let text = ''
    const fail = (reason: string) => {
      clearTimeout(timer)
      reject(new DisplayActionError({ tool: 'display', reason: `Xvfb did not start: ${reason}` }))
    }
    const timer = setTimeout(() => fail(`no display within ${timeoutMs} ms`), timeoutMs)
    child.once('error', (error) => fail(error.message))
    child.once('exit', (code) => fail(`it exited (${code}): ${stderr().trim().split('\n').at(-1)}`))
    pipe?.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      const match = /^(\d+)\n/.exec(text)
      if (!match) return
      clearTimeout(timer)
      pipe.destroy()
      resolve(Number(match[1]))
    })
  })
}
