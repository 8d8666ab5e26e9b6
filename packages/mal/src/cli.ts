#!/usr/bin/env node
import { runCli } from './cli/run-cli'

const controller = new AbortController()
process.once('SIGINT', () => controller.abort())
runCli(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  stdin: process.stdin,
  env: process.env,
  signal: controller.signal,
}).then((code) => {
  process.exitCode = code
})
