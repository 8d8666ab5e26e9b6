import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { runTsx } from './run-tsx'

describe('runTsx', () => {
  it('signals the file’s own process: a busy one still handles Ctrl-C itself', async () => {
    const { code, stdout } = await runTsx(
      fileURLToPath(new URL('./interrupted-while-busy.ts', import.meta.url)),
      [],
      {
        onStart: (child) => {
          child.stdout?.on('data', (chunk: Buffer) => {
            if (chunk.toString().includes('ready')) child.kill('SIGINT')
          })
        },
      },
    )
    expect(stdout).toBe('ready\ncancelled\n')
    expect(code).toBe(130)
  })
})
