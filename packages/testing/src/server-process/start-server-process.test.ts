import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isAlive } from '../processes/is-alive'
import { runServerToExit, startServerProcess } from './start-server-process'

// A plain-node HTTP server printing its address as the Baton server does; `fail` exits first.
const server = `
import { createServer } from 'node:http'
if (process.argv[2] === 'fail') { console.error('no such folder: ' + process.env.WHERE); process.exit(3) }
process.on('SIGTERM', () => process.exit(0))
const http = createServer((request, response) => response.end('ok'))
http.listen(0, process.env.HOST, () => console.log('Baton server listening on http://' + process.env.HOST + ':' + http.address().port))
`

let folder: string
let entry: string
beforeAll(async () => {
  folder = await mkdtemp(path.join(tmpdir(), 'baton-server-process-'))
  entry = path.join(folder, 'server.mjs')
  await writeFile(entry, server)
})
afterAll(() => rm(folder, { recursive: true, force: true }))

describe('startServerProcess', () => {
  it('resolves with the URL the server prints once it listens, and stop() ends it by its PID', async () => {
    const started = await startServerProcess({ entry })
    expect(started.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await (await fetch(started.url)).text()).toBe('ok')
    expect(started.output()).toContain('listening on')
    await started.stop()
    expect(await started.exited).toBe(0)
    expect(isAlive(started.child.pid!)).toBe(false)
  })

  it('rejects with what the server printed when it exits before listening', async () => {
    await expect(
      startServerProcess({ entry, args: ['fail'], environment: { WHERE: '/nowhere' } }),
    ).rejects.toThrow(/exited \(3\) before listening:\nno such folder: \/nowhere/)
  })
})

describe('runServerToExit', () => {
  it('resolves with the exit code and the output of a server that fails to start', async () => {
    const { code, output } = await runServerToExit({
      entry,
      args: ['fail'],
      environment: { WHERE: '/full' },
    })
    expect(code).toBe(3)
    expect(output).toContain('no such folder: /full')
  })

  it('kills a server that listens instead, and says so in its code', async () => {
    const { code, output } = await runServerToExit({ entry })
    expect(code).toBe('SIGKILL')
    expect(output).toContain('listening on http://')
  })
})
