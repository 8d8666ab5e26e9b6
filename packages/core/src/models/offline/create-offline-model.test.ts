import { generateObject, generateText, Output, stepCountIs, streamText, tool } from 'ai'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { createOfflineModel } from './create-offline-model'

const add = tool({
  inputSchema: z.object({ a: z.number(), b: z.number() }),
  execute: async ({ a, b }) => ({ sum: a + b }),
})

describe('createOfflineModel', () => {
  it('echoes the task as the agent named in the system prompt, persona included', async () => {
    const { text } = await generateText({
      model: createOfflineModel(),
      system: 'Answer like a pirate.\n\nYou are Ada, a worker agent. Adds numbers.',
      prompt: '  Summarize   the [[sleep:0]] report ',
    })
    expect(text).toBe(
      'Ada (worker): Here is my response to "Summarize the report". Persona: Answer like a pirate.',
    )
  })

  it('tells of an image a tool returned in a few words, not as its base64', async () => {
    const png = Buffer.alloc(3000, 7).toString('base64')
    const { text } = await generateText({
      model: createOfflineModel(),
      prompt: 'Look [[tool:shoot]]',
      tools: {
        shoot: tool({
          inputSchema: z.object({}),
          execute: async () => ({ path: 'a.png' }),
          toModelOutput: () => ({
            type: 'content',
            value: [
              { type: 'text', text: 'saved a.png' },
              { type: 'image-data', data: png, mediaType: 'image/png' },
            ],
          }),
        }),
      },
      stopWhen: stepCountIs(3),
    })
    expect(text).toContain('shoot → saved a.png [image/png, 3000 bytes]')
    expect(text).not.toContain(png.slice(0, 40))
  })

  it('answers as a generic assistant when the system prompt does not name an agent', async () => {
    const { text } = await generateText({ model: createOfflineModel(), prompt: 'hello' })
    expect(text).toBe('Assistant (assistant): Here is my response to "hello".')
  })

  it('reports usage of one token per four characters, in and out', async () => {
    const prompt = 'x'.repeat(41)
    const { text, usage } = await generateText({ model: createOfflineModel(), prompt })
    expect(usage.inputTokens).toBe(11)
    expect(usage.outputTokens).toBe(Math.ceil(text.length / 4))
  })

  it('makes one tool call per directive, in order, then answers with the results', async () => {
    const calls: unknown[] = []
    const result = await generateText({
      model: createOfflineModel(),
      tools: {
        add: tool({
          inputSchema: z.object({ a: z.number(), b: z.number() }),
          execute: async (input) => {
            calls.push(input)
            return { sum: input.a + input.b }
          },
        }),
      },
      stopWhen: stepCountIs(10),
      prompt: 'Add [[tool:add {"a":1,"b":2}]] and [[tool:add {"a":3,"b":4}]]',
    })
    expect(calls).toEqual([
      { a: 1, b: 2 },
      { a: 3, b: 4 },
    ])
    expect(result.steps.map((step) => step.finishReason)).toEqual([
      'tool-calls',
      'tool-calls',
      'stop',
    ])
    expect(result.text).toContain('Tool results: add → {"sum":3}; add → {"sum":7}.')
  })

  it('answers with exactly the [[answer:]] text, after the tool calls', async () => {
    const result = await generateText({
      model: createOfflineModel(),
      tools: { add },
      stopWhen: stepCountIs(5),
      prompt: '[[tool:add {"a":1,"b":1}]] [[answer:two, as expected]]',
    })
    expect(result.steps).toHaveLength(2)
    expect(result.text).toBe('two, as expected')
  })

  it('returns the [[json:]] object as text and as structured output', async () => {
    const prompt = 'Rate it [[json:{"score":7,"tags":["a]]b"]}]]'
    const { text } = await generateText({ model: createOfflineModel(), prompt })
    expect(JSON.parse(text)).toEqual({ score: 7, tags: ['a]]b'] })
    const { output } = await generateText({
      model: createOfflineModel(),
      output: Output.object({ schema: z.object({ score: z.number(), tags: z.array(z.string()) }) }),
      prompt,
    })
    expect(output).toEqual({ score: 7, tags: ['a]]b'] })
  })

  it('invents a deterministic object valid against the requested schema', async () => {
    const schema = z.object({
      title: z.string().min(3),
      count: z.number().int().min(2),
      kind: z.enum(['bug', 'feature']),
      done: z.boolean(),
      labels: z.array(z.string()).min(1),
      owner: z.object({ email: z.email() }),
    })
    const first = await generateObject({ model: createOfflineModel(), schema, prompt: 'triage' })
    const second = await generateObject({ model: createOfflineModel(), schema, prompt: 'triage' })
    expect(schema.safeParse(first.object).success).toBe(true)
    expect(first.object).toEqual(second.object)
    expect(first.object.kind).toBe('bug')
  })

  it('throws the [[fail:]] message from the model call', async () => {
    await expect(
      generateText({ model: createOfflineModel(), prompt: '[[fail:quota gone]]', maxRetries: 0 }),
    ).rejects.toThrow('quota gone')
  })

  it('stops a [[sleep:]] call when its abort signal fires', async () => {
    const controller = new AbortController()
    const reason = new Error('stop now')
    setTimeout(() => controller.abort(reason), 50)
    // Without the abort the call would resolve after 20 s; rejecting with the reason proves it stopped.
    await expect(
      generateText({
        model: createOfflineModel(),
        prompt: '[[sleep:20000]] slow',
        abortSignal: controller.signal,
      }),
    ).rejects.toBe(reason)
  })

  it('refuses a malformed tool directive with a clear error', async () => {
    await expect(
      generateText({
        model: createOfflineModel(),
        prompt: '[[tool:add {not json]]',
        maxRetries: 0,
      }),
    ).rejects.toThrow(/Malformed offline directive \[\[tool:/)
  })

  it('shortens its answer to maxOutputTokens and says so', async () => {
    const result = await generateText({
      model: createOfflineModel(),
      prompt: `[[answer:${'y'.repeat(100)}]]`,
      maxOutputTokens: 5,
    })
    expect(result.text).toBe('y'.repeat(20))
    expect(result.finishReason).toBe('length')
  })

  it('streams text and tool calls like doGenerate', async () => {
    const result = streamText({
      model: createOfflineModel(),
      tools: { add },
      stopWhen: stepCountIs(5),
      prompt: '[[tool:add {"a":2,"b":2}]] stream it',
    })
    const text = await result.text
    expect(text).toContain('add → {"sum":4}')
    expect((await result.totalUsage).inputTokens).toBeGreaterThan(0)
    expect(await result.steps).toHaveLength(2)
  })

  it('streams its text in chunks, waiting [[chunk-delay:MS]] before each one', async () => {
    const model = createOfflineModel()
    const text = 'chunk '.repeat(12)
    const { stream } = await model.doStream({
      prompt: [
        {
          role: 'user',
          content: [{ type: 'text', text: `[[chunk-delay:15]] [[answer:${text}]]` }],
        },
      ],
    })
    const arrivals: { delta: string; at: number }[] = []
    const started = performance.now()
    const reader = stream.getReader()
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      const part = next.value
      if (part.type === 'text-delta')
        arrivals.push({ delta: part.delta, at: performance.now() - started })
    }
    expect(arrivals.length).toBe(Math.ceil(text.length / 24))
    expect(arrivals.map((arrival) => arrival.delta).join('')).toBe(text)
    // Paced: the last chunk comes at least (chunks × delay) after the call, give or take a timer.
    expect(arrivals.at(-1)!.at).toBeGreaterThanOrEqual(arrivals.length * 15 - 5)
  })

  it('stops a paced stream when the call is aborted', async () => {
    const controller = new AbortController()
    const { stream } = await createOfflineModel().doStream({
      prompt: [{ role: 'user', content: [{ type: 'text', text: `[[chunk-delay:1000]] hello` }] }],
      abortSignal: controller.signal,
    })
    setTimeout(() => controller.abort(new Error('stop')), 10)
    await expect(stream.pipeTo(new WritableStream())).rejects.toThrow('stop')
  })
})
