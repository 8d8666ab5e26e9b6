import { mkdir, writeFile } from 'node:fs/promises'
import { Session } from 'node:inspector/promises'
import path from 'node:path'

/**
 * Starts a CPU profile of this process through the inspector, so a profile covers the work
 * measured and not the imports before it (`node --cpu-prof` would); the returned function
 * stops it and writes `<name>.cpuprofile` into `directory` (its `discard` stops it and writes
 * nothing: a warm-up's profile).
 *
 * @example
 * const stop = await startCpuProfile()
 * await work()
 * await stop(directory, 'chain-baton')
 */
export async function startCpuProfile(): Promise<StopCpuProfile> {
  const session = new Session()
  session.connect()
  await session.post('Profiler.enable')
  await session.post('Profiler.start')
  const stop = async (directory: string, name: string) => {
    const { profile } = await session.post('Profiler.stop')
    session.disconnect()
    await mkdir(directory, { recursive: true })
    const file = path.join(directory, `${name}.cpuprofile`)
    await writeFile(file, JSON.stringify(profile))
    return file
  }
  const discard = async () => {
    await session.post('Profiler.stop')
    session.disconnect()
  }
  return Object.assign(stop, { discard })
}

/** Stops the profile and writes it (or, with `discard`, stops it and keeps nothing). */
export type StopCpuProfile = ((directory: string, name: string) => Promise<string>) & {
  discard(): Promise<void>
}
