import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp } from '../__fixtures__/test-app'
import { seedDemo } from '../seed/seed-demo'
import { cacheRegistryAnswers } from './cache-registry-answers'

const analyst = '0x1111111111111111111111111111111111111111'
const coder = '0x2222222222222222222222222222222222222222'

describe('cacheRegistryAnswers', () => {
  let app: FastifyInstance
  beforeAll(async () => {
    app = await createTestApp()
    await seedDemo(app.baton)
  })
  afterAll(async () => {
    await app.close()
  })

  it('keeps an answer for the wallet as spelled until an invalidation or its time to live', async () => {
    let clock = 1_000
    const answers = cacheRegistryAnswers(app.baton.registry, { ttlMs: 500, now: () => clock })
    expect(answers.kept(analyst)).toBeUndefined()
    const answer = await answers.answer(analyst)
    expect(JSON.parse(answer.body)).toMatchObject({ id: 'analyst' })
    expect(answers.kept(analyst)).toBe(answer)
    answers.invalidate()
    expect(answers.kept(analyst)).toBeUndefined()
    await answers.answer(analyst)
    clock += 499
    expect(answers.kept(analyst)).toBeDefined()
    clock += 1
    expect(answers.kept(analyst)).toBeUndefined()
    await expect(answers.answer(`0x${'9'.repeat(40)}`)).rejects.toMatchObject({
      code: 'UNREGISTERED_AGENT',
    })
    expect(answers.kept(`0x${'9'.repeat(40)}`)).toBeUndefined()
  })

  it('keeps at most maxAnswers answers, dropping the oldest first', async () => {
    const answers = cacheRegistryAnswers(app.baton.registry, { maxAnswers: 1 })
    const first = await answers.answer(analyst)
    expect(answers.kept(analyst)).toBe(first)
    await answers.answer(coder)
    expect(answers.kept(analyst)).toBeUndefined()
    expect(answers.kept(coder)).toBeDefined()
  })
})
