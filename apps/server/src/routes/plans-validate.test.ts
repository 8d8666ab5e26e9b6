import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'

const analyst = '0x1111111111111111111111111111111111111111'
const token = 'validate-token-0123456789'

describe('POST /api/v1/plans/validate', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp({ bodyLimit: 4096, apiToken: token, publicReads: true })
  })
  afterAll(async () => {
    await app.close()
  })

  const validate = (plan: unknown) =>
    app.inject({ method: 'POST', url: '/api/v1/plans/validate', payload: { plan } })

  it('answers ok with the name and the number of steps of a valid plan', async () => {
    const plan = `name: hello\nsteps:\n  - op: delegate\n    saveAs: analysis\n    agentWallet: "${analyst}"\n    prompt: hi\n  - op: stop\n    output: "{{analysis}}"\n`
    const response = await validate(plan)
    expect(response.statusCode).toBe(200)
    expect(response.json()).toEqual({ ok: true, plan: { name: 'hello', steps: 2 } })
  })

  it('names an unknown op at its line, as POST /api/v1/runs refuses it', async () => {
    const plan = 'name: x\nsteps:\n  - op: stop\n    output: done\n  - op: explode\n'
    const response = await validate(plan)
    expect(response.statusCode).toBe(200)
    const body = response.json()
    expect(body.ok).toBe(false)
    expect(body.issues).toContainEqual(
      expect.objectContaining({ code: 'PLAN_INVALID', path: 'steps[1].op', line: 5 }),
    )
    expect(body.issues[0].message).toMatch(/unknown op/)
    const refused = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      headers: { authorization: `Bearer ${token}` },
      payload: { plan },
    })
    expect(refused.statusCode).toBe(400)
    expect(
      refused.json().error.details.issues.map((issue: { message: string }) => issue.message),
    ).toEqual(body.issues.map((issue: { message: string }) => issue.message))
  })

  it('names a bad wallet at its line and column', async () => {
    const plan = 'steps:\n  - op: delegate\n    agentWallet: nope\n    prompt: hi\n'
    const body = (await validate(plan)).json()
    expect(body.ok).toBe(false)
    expect(body.issues).toContainEqual(
      expect.objectContaining({
        path: 'steps[0].agentWallet',
        line: 3,
        column: expect.any(Number),
      }),
    )
  })

  it('reports a YAML syntax error at its line', async () => {
    const body = (await validate('name: broken\nsteps: [\n  - op: stop\n')).json()
    expect(body.ok).toBe(false)
    expect(body.issues.length).toBeGreaterThan(0)
    expect(body.issues[0]).toMatchObject({ code: 'PLAN_INVALID', path: '' })
    expect(body.issues[0].line).toBeGreaterThanOrEqual(1)
  })

  it('refuses a body past the limit with 413, as every route', async () => {
    const response = await validate(`name: big\nsteps: []\n# ${'x'.repeat(8192)}\n`)
    expect(response.statusCode).toBe(413)
    expect(response.json().error.code).toBe('PAYLOAD_TOO_LARGE')
  })

  it('is a read under BATON_API_TOKEN: it needs no token, starting a run does', async () => {
    expect((await validate('steps: []\n')).statusCode).toBe(200)
    const start = await app.inject({
      method: 'POST',
      url: '/api/v1/runs',
      payload: { plan: 'steps: []\n' },
    })
    expect(start.statusCode).toBe(401)
  })
})
