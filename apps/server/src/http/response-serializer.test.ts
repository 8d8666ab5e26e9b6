import { Writable } from 'node:stream'
import Fastify from 'fastify'
import { validatorCompiler, type ZodTypeProvider } from 'fastify-type-provider-zod'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { installErrorHandler } from './error-handler'
import { responseSerializer, shapeProblems } from './response-serializer'

const Run = z.object({
  id: z.string(),
  status: z.enum(['queued', 'done']),
  steps: z.array(z.object({ name: z.string(), output: z.unknown() })),
  error: z.string().nullable(),
})

/** What each route answers, whatever its schema says. */
const answers = {
  exact: { id: 'r1', status: 'done', steps: [{ name: 'a', output: { n: 1 } }], error: null },
  extra: { id: 'r1', status: 'done', steps: [{ name: 'a', output: 1, cost: 2 }], error: null },
  wrong: { id: 'r1', status: 'lost', steps: [], error: null },
}

async function appWith(check: boolean) {
  const lines: string[] = []
  const app = Fastify({
    logger: {
      level: 'error',
      stream: new Writable({
        write(chunk, _encoding, done) {
          lines.push(String(chunk))
          done()
        },
      }),
    },
  }).withTypeProvider<ZodTypeProvider>()
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(responseSerializer({ check }))
  installErrorHandler(app)
  for (const [name, answer] of Object.entries(answers)) {
    app.get(`/${name}`, { schema: { response: { 200: Run } } }, async () => answer as never)
  }
  // A refusal is not held against the route's success schema.
  app.get('/refused', { schema: { response: { 200: Run } } }, async () => {
    throw Object.assign(new Error('no such run'), { statusCode: 404, code: 'NOT_FOUND' })
  })
  await app.ready()
  return { app, lines }
}

describe('responseSerializer', () => {
  it('writes every answer as JSON.stringify does when it does not check: nothing stripped', async () => {
    const { app } = await appWith(false)
    for (const [name, answer] of Object.entries(answers)) {
      const response = await app.inject(`/${name}`)
      expect(response.statusCode).toBe(200)
      expect(response.body).toBe(JSON.stringify(answer))
    }
    await app.close()
  })

  it('sends an answer that matches its schema, byte for byte, when it checks', async () => {
    const { app, lines } = await appWith(true)
    const response = await app.inject('/exact')
    expect(response.statusCode).toBe(200)
    expect(response.body).toBe(JSON.stringify(answers.exact))
    expect((await app.inject('/refused')).statusCode).toBe(404)
    expect(lines).toEqual([])
    await app.close()
  })

  it('fails an answer with an undeclared field or a wrong value, naming each in the log', async () => {
    const { app, lines } = await appWith(true)
    const extra = await app.inject('/extra')
    expect(extra.statusCode).toBe(500)
    expect(extra.json().error.code).toBe('INTERNAL')
    expect(extra.body).not.toContain('cost')
    const wrong = await app.inject('/wrong')
    expect(wrong.statusCode).toBe(500)
    const logged = lines.join('\n')
    expect(logged).toContain('ResponseShapeError')
    expect(logged).toContain('The 200 answer of GET /extra')
    expect(logged).toContain('steps[0].cost is not declared')
    expect(logged).toMatch(/The 200 answer of GET \/wrong[^"]*status: Invalid option/)
    await app.close()
  })
})

describe('shapeProblems', () => {
  it('reads the answer as a client would: after JSON, with nothing extra and nothing missing', () => {
    expect(shapeProblems(Run, answers.exact)).toEqual([])
    expect(shapeProblems(Run, { ...answers.exact, error: undefined } as never)).toEqual([
      'error: Invalid input: expected string, received undefined',
    ])
    expect(shapeProblems(z.array(Run), [answers.exact, { ...answers.exact, more: [1] }])).toEqual([
      '[1].more is not declared',
    ])
  })

  it('names a schema that would change the answer: a default is not what was sent', () => {
    const Defaulted = z.object({ id: z.string(), tags: z.array(z.string()).default([]) })
    expect(shapeProblems(Defaulted, { id: 'a' })).toEqual([
      'the schema changes the answer (a default or a transform)',
    ])
  })
})
