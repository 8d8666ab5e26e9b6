import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { PassThrough } from 'node:stream'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXIT, runCli } from './run-cli'

let directory: string
beforeAll(async () => {
  directory = await mkdtemp(path.join(tmpdir(), 'mal-cli-budget-'))
  await writeFile(
    path.join(directory, 'ask.yaml'),
    [
      'steps:',
      '  - op: ask_user',
      '    saveAs: go',
      '    question: "Ship it?"',
      '  - op: models_call',
      '    saveAs: done',
      '    model: offline:default',
      '    prompt: "[[answer:shipped {{go}}]]"',
      '  - op: stop',
      '    output: "{{done}}"',
    ].join('\n'),
  )
})
afterAll(async () => {
  await rm(directory, { recursive: true, force: true })
})

function io(stdin: PassThrough) {
  let stdout = ''
  let stderr = ''
  return {
    io: {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
      stdin,
      env: {},
    },
    output: () => ({ stdout, stderr }),
  }
}

describe('runCli --budget-seconds', () => {
  it('does not count the time spent waiting for an answer against the run', async () => {
    const stdin = new PassThrough()
    const { io: cliIo, output } = io(stdin)
    // The answer comes after longer than the whole run may take.
    const answered = setTimeout(() => stdin.end('yes\n'), 2300)
    const code = await runCli(
      ['run', path.join(directory, 'ask.yaml'), '--budget-seconds', '2', '--budget-calls', '1'],
      cliIo,
    )
    clearTimeout(answered)
    expect(output().stderr).not.toMatch(/BUDGET_EXCEEDED/)
    expect(code).toBe(EXIT.ok)
    expect(output().stdout).toBe('shipped yes\n')
  })

  it('still carries spend across the answer: a second call past --budget-calls is refused', async () => {
    await writeFile(
      path.join(directory, 'two.yaml'),
      [
        'steps:',
        '  - op: models_call',
        '    saveAs: first',
        '    model: offline:default',
        '    prompt: one',
        '  - op: ask_user',
        '    saveAs: go',
        '    question: "Again?"',
        '  - op: models_call',
        '    saveAs: second',
        '    model: offline:default',
        '    prompt: two',
      ].join('\n'),
    )
    const stdin = new PassThrough()
    stdin.end('yes\n')
    const { io: cliIo, output } = io(stdin)
    const code = await runCli(
      ['run', path.join(directory, 'two.yaml'), '--budget-calls', '1'],
      cliIo,
    )
    expect(code).toBe(EXIT.failed)
    expect(output().stderr).toMatch(/BUDGET_EXCEEDED/)
  })
})

describe('runPlan with a spent caller budget', () => {
  it('returns a failed result instead of rejecting', async () => {
    const { createBudget, createStaticRegistry } = await import('@baton/core')
    const { runPlan } = await import('../run')
    const budget = createBudget({ calls: 1 })
    budget.charge({ calls: 1 })
    const result = await runPlan(
      { steps: [{ op: 'models_call', saveAs: 'a', model: 'offline:x', prompt: 'hi' }] },
      { registry: createStaticRegistry([]), budget },
    )
    expect(result.status).toBe('failed')
    expect(result.error).toMatchObject({ code: 'BUDGET_EXCEEDED' })
  })
})
