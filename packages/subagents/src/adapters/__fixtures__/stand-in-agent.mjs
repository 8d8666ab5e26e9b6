#!/usr/bin/env node
// A stand-in for an external agent CLI: it speaks Baton's JSON-lines format. Its task is JSON:
// { sleepMs, usageEveryMs, costUsd, result, question, helper, ignoreTerm, exitCode, write }
import { spawn } from 'node:child_process'
import { appendFileSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

const raw = process.argv[2] ?? '{}'
let task
try {
  task = JSON.parse(raw)
} catch {
  task = { result: `stand-in did: ${raw}` }
}
const print = (event) => process.stdout.write(`${JSON.stringify(event)}\n`)
const pids = [process.pid]
if (task.helper) {
  // A process of its own, as real agent CLIs start (shells, language servers).
  const helper = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { stdio: 'ignore' })
  pids.push(helper.pid)
}
appendFileSync('stand-in.pids', `${pids.join('\n')}\n`)
if (task.ignoreTerm) process.on('SIGTERM', () => {})
if (task.write) writeFileSync(task.write, 'written by the stand-in\n')
print({ type: 'session', sessionId: `session-${process.pid}` })
print({ type: 'text', text: 'started' })
if (task.usageEveryMs) {
  setInterval(
    () =>
      print({
        type: 'usage',
        calls: 1,
        inputTokens: 10,
        outputTokens: 5,
        costUsd: task.costUsd ?? 0.001,
      }),
    task.usageEveryMs,
  )
}

async function main() {
  let result = task.result ?? 'done'
  if (task.question) {
    print({ type: 'question', text: task.question })
    const lines = createInterface({ input: process.stdin })
    for await (const line of lines) {
      const message = JSON.parse(line)
      if (message.type === 'answer') {
        result = `answer was ${message.text}`
        break
      }
    }
  }
  await new Promise((resolve) => setTimeout(resolve, task.sleepMs ?? 0))
  if (task.exitCode) {
    process.stderr.write('stand-in failed on purpose\n')
    process.exit(task.exitCode)
  }
  print({ type: 'result', text: result, costUsd: task.totalCostUsd })
  process.exit(0)
}
main()
