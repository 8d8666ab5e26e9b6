import { spawn } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { SOURCE_NODE_FLAGS } from '../../measure'
import type { Figure, Subjects } from '../types'

const child = fileURLToPath(new URL('./chain-telemetry-child.ts', import.meta.url))
const telemetrySwitch = fileURLToPath(new URL('./telemetry-switch.ts', import.meta.url))

export const chainTelemetrySubjects: Subjects = {
  // A process of its own, started with the telemetry switch first: the switch must see Baton's
  // instrumentation load, which another case of a smoke run may have loaded already.
  async baton(size) {
    const process_ = spawn(
      process.execPath,
      [...SOURCE_NODE_FLAGS, '--import', telemetrySwitch, child, size],
      { stdio: ['ignore', 'pipe', 'pipe'], env: process.env },
    )
    let stdout = ''
    let stderr = ''
    process_.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    process_.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const code = await new Promise<number | null>((resolve) => process_.on('close', resolve))
    const line = stdout.split('\n').find((each) => each.startsWith('{"figure"'))
    if (!line) {
      const last = stderr.trim().split('\n').filter(Boolean).at(-1)
      throw new Error(`the telemetry bench's process ended (${code}) without a figure: ${last}`)
    }
    return (JSON.parse(line) as { figure: Figure }).figure
  },
}
