// Resumes a paused run in a fresh process: the state arrives as JSON on stdin.
import { createStaticRegistry } from '@baton/core'
import { resumeRun } from '../run'

const [answer = '', agentsJson = '[]'] = process.argv.slice(2)
let input = ''
for await (const chunk of process.stdin) input += chunk
const result = await resumeRun(JSON.parse(input), answer, {
  registry: createStaticRegistry(JSON.parse(agentsJson)),
})
process.stdout.write(JSON.stringify(result))
