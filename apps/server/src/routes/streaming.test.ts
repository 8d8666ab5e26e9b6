import {
  SendMessageRequest,
  type StreamResponse,
  SubscribeToTaskRequest,
  type Task,
  TaskState,
} from '@a2a-js/sdk'
import { ClientFactory, JsonRpcTransportFactory } from '@a2a-js/sdk/client'
import { AgentSwarm } from '@baton/core'
import { readSse, type SseEvent } from '@baton/testing/sse'
import type { FastifyInstance } from 'fastify'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listenTestApp } from '../__fixtures__/listen-test-app'

let app: FastifyInstance
let base: string
beforeAll(async () => {
  ;({ app, base } = await listenTestApp())
})
afterAll(async () => {
  await app.close()
})

// The offline model, slowed per chunk: about 30 chunks of 24 characters, 25 ms apart.
const words = 'streamed words arrive one piece at a time '.repeat(17).trim()
const slow = `[[chunk-delay:25]] [[answer:${words}]]`

type Parsed = SseEvent & { body: Record<string, unknown> }

/** Reads an SSE response until `until` says stop (or the stream ends), then lets it go. */
async function readEvents(
  url: string,
  options: { headers?: Record<string, string>; until?: (event: Parsed) => boolean } = {},
): Promise<Parsed[]> {
  const controller = new AbortController()
  const response = await fetch(url, { headers: options.headers ?? {}, signal: controller.signal })
  expect(response.headers.get('content-type')).toMatch(/text\/event-stream/)
  const events: Parsed[] = []
  try {
    for await (const event of readSse(response.body!)) {
      const parsed = { ...event, body: JSON.parse(event.data) as Record<string, unknown> }
      events.push(parsed)
      if (options.until?.(parsed)) break
    }
  } finally {
    controller.abort()
  }
  return events
}

async function startRun(prompt: string): Promise<string> {
  const response = await fetch(`${base}/api/v1/runs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      plan: { steps: [{ op: 'models_call', saveAs: 'answer', model: 'offline:default', prompt }] },
    }),
  })
  expect(response.status).toBe(202)
  return ((await response.json()) as { id: string }).id
}

const textOf = (events: Parsed[]) =>
  events
    .filter((event) => event.event === 'step-delta')
    .map((event) => event.body.text)
    .join('')

describe('GET /api/v1/runs/:id/events, streamed', () => {
  it('carries step-delta events live, without ids, between the stored step-start and step-finish', async () => {
    // The model starts writing after the reader is in: deltas before it joined are not kept.
    const id = await startRun(`[[sleep:400]] ${slow}`)
    const events = await readEvents(`${base}/api/v1/runs/${id}/events`)
    const kinds = events.map((event) => event.event)
    const start = kinds.indexOf('step-start')
    const finish = kinds.indexOf('step-finish')
    const deltas = events.filter((event) => event.event === 'step-delta')
    expect(deltas.length).toBeGreaterThan(2)
    expect(deltas.every((delta) => delta.id === undefined)).toBe(true)
    expect(deltas.every((delta) => delta.body.path === 'steps[0]')).toBe(true)
    expect(kinds.lastIndexOf('step-delta')).toBeLessThan(finish)
    expect(kinds.indexOf('step-delta')).toBeGreaterThan(start)
    expect(textOf(events)).toBe(words)
    expect(events[finish]!.body.firstTextMs).toEqual(expect.any(Number))

    // Live only: the run's stored events have the step's text once, in its step-finish.
    const stored = await app.baton.repositories.runs.events(id, -1)
    expect(stored.map((event) => event.type)).toContain('step-finish')
    expect(stored.map((event) => event.type)).not.toContain('step-delta')
  })

  it('gives a reader who joins from the start while a step writes the text it missed, then the rest', async () => {
    const id = await startRun(slow)
    await new Promise((resolve) => setTimeout(resolve, 250))
    const events = await readEvents(`${base}/api/v1/runs/${id}/events`)
    const kinds = events.map((event) => event.event)
    expect(kinds.indexOf('step-delta')).toBeGreaterThan(kinds.indexOf('step-start'))
    expect(textOf(events)).toBe(words)
  })

  it('gives a reader resuming with Last-Event-ID the stored events after it, then the live deltas', async () => {
    const id = await startRun(slow)
    // A first reader leaves after the first piece of text.
    const first = await readEvents(`${base}/api/v1/runs/${id}/events`, {
      until: (event) => event.event === 'step-delta',
    })
    const lastId = first.filter((event) => event.id !== undefined).at(-1)!.id!
    const resumed = await readEvents(`${base}/api/v1/runs/${id}/events`, {
      headers: { 'last-event-id': lastId },
    })
    const ids = resumed.flatMap((event) => (event.id === undefined ? [] : [Number(event.id)]))
    // No stored event twice: only those after the one it had.
    expect(ids.every((each) => each > Number(lastId))).toBe(true)
    expect(resumed.map((event) => event.event)).toContain('step-finish')
    // The deltas from then on, in order: the rest of the text, ending where the answer ends.
    const rest = textOf(resumed)
    expect(rest.length).toBeGreaterThan(0)
    expect(words.endsWith(rest)).toBe(true)
  })
})

describe('GET /api/v1/runs/:id/events of a swarm run, streamed', () => {
  it("carries each member call's text as live step-delta events, with the member's path and wallet", async () => {
    const pair = AgentSwarm.parse({
      id: 'stream-pair',
      name: 'Stream pair',
      strategy: 'round-robin',
      maxRounds: 1,
      agents: [
        { agentId: 'analyst', role: 'worker' },
        { agentId: 'tester', role: 'worker' },
      ],
    })
    await app.baton.repositories.swarms.insert(pair)
    const response = await fetch(`${base}/api/v1/swarms/stream-pair/runs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ task: `[[sleep:300]] [[chunk-delay:10]] [[answer:${words}]]` }),
    })
    expect(response.status).toBe(202)
    const { runId } = (await response.json()) as { runId: string }
    const events = await readEvents(`${base}/api/v1/runs/${runId}/events`)
    const kinds = events.map((event) => event.event)
    expect(kinds.at(-1)).toBe('swarm-finish')
    for (const agentId of ['analyst', 'tester']) {
      const agent = await app.baton.repositories.agents.findById(agentId)
      const deltas = events.filter(
        (event) => event.event === 'step-delta' && event.body.agentId === agentId,
      )
      expect(deltas.length).toBeGreaterThan(2)
      expect(deltas.every((delta) => delta.id === undefined)).toBe(true)
      for (const delta of deltas) {
        expect(delta.body).toMatchObject({ path: `r1/${agentId}`, wallet: agent!.wallet, round: 1 })
      }
      expect(deltas.map((delta) => delta.body.text).join('')).toBe(words)
      // Before the member's message, which has the answer whole.
      const message = events.findIndex(
        (event) => event.event === 'swarm-message' && event.body.agentId === agentId,
      )
      expect(events.indexOf(deltas.at(-1)!)).toBeLessThan(message)
    }
    // Live only: none is stored.
    const stored = await app.baton.repositories.runs.events(runId, -1)
    expect(stored.map((event) => event.type)).not.toContain('step-delta')
  })
})

describe('GET /api/v1/messages/stream, streamed replies', () => {
  it("sends a hosted agent's reply as delta events before the whole reply message", async () => {
    let correlationId = ''
    const reading = readEvents(`${base}/api/v1/messages/stream`, {
      until: (event) =>
        event.event === 'message' &&
        event.body.type === 'reply' &&
        event.body.correlationId === correlationId,
    })
    // The stream is open once the server has sent its first comment; give it a moment.
    await new Promise((resolve) => setTimeout(resolve, 100))
    const sent = await fetch(`${base}/api/v1/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        from: { agentId: 'person' },
        to: { agentId: 'analyst' },
        content: slow,
      }),
    })
    expect(sent.status).toBe(202)
    correlationId = ((await sent.json()) as { envelope: { correlationId: string } }).envelope
      .correlationId
    const events = (await reading).filter((event) => event.body.correlationId === correlationId)
    const deltas = events.filter((event) => event.event === 'delta')
    expect(deltas.length).toBeGreaterThan(2)
    expect(deltas[0]!.body).toMatchObject({
      from: { agentId: 'analyst' },
      to: { agentId: 'person' },
    })
    expect(deltas.map((delta) => delta.body.text).join('')).toBe(words)
    const reply = events.at(-1)!
    expect(reply.body.content).toBe(words)
    expect(events.indexOf(deltas.at(-1)!)).toBeLessThan(events.indexOf(reply))
  })
})

describe('A2A streaming', () => {
  it('SendStreamingMessage sends the answer as appended artifact pieces, then the whole answer', async () => {
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({})],
    }).createFromUrl(`${base}/a2a/analyst/.well-known/agent-card.json`, '')
    const request = SendMessageRequest.fromJSON({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: slow }] },
    })
    const pieces: { append: boolean; lastChunk: boolean; text: string }[] = []
    for await (const event of client.sendMessageStream(request)) {
      if (event.payload?.$case !== 'artifactUpdate') continue
      const update = event.payload.value
      const text = (update.artifact?.parts ?? [])
        .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
        .join('')
      pieces.push({ append: update.append, lastChunk: update.lastChunk, text })
    }
    const appended = pieces.filter((piece) => piece.append)
    expect(appended.length).toBeGreaterThan(2)
    expect(appended.every((piece) => !piece.lastChunk)).toBe(true)
    expect(appended.map((piece) => piece.text).join('')).toBe(words)
    expect(pieces.at(-1)).toEqual({ append: false, lastChunk: true, text: words })

    // SendMessage is unchanged: one artifact, one part, the whole answer.
    const again = SendMessageRequest.fromJSON({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: slow }] },
    })
    const task = (await client.sendMessage(again)) as Task
    expect(task.artifacts).toHaveLength(1)
    expect(task.artifacts[0]?.parts).toHaveLength(1)
    expect(task.artifacts[0]?.parts[0]?.content).toEqual({ $case: 'text', value: words })
  })

  it('v0.3 message/stream sends artifact-update events with append: true as the text comes', async () => {
    const response = await fetch(`${base}/a2a/analyst`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'message/stream',
        params: {
          message: {
            kind: 'message',
            messageId: crypto.randomUUID(),
            role: 'user',
            parts: [{ kind: 'text', text: slow }],
          },
        },
      }),
    })
    expect(response.headers.get('content-type')).toMatch(/text\/event-stream/)
    const updates: { append?: boolean; lastChunk?: boolean; text: string }[] = []
    for await (const event of readSse(response.body!)) {
      const result = (JSON.parse(event.data) as { result?: Record<string, unknown> }).result
      if (result?.kind !== 'artifact-update') continue
      const artifact = result.artifact as { parts: { text?: string }[] }
      updates.push({
        append: result.append as boolean | undefined,
        lastChunk: result.lastChunk as boolean | undefined,
        text: artifact.parts.map((part) => part.text ?? '').join(''),
      })
    }
    const appended = updates.filter((update) => update.append === true)
    expect(appended.length).toBeGreaterThan(2)
    expect(appended.map((update) => update.text).join('')).toBe(words)
    expect(updates.at(-1)).toMatchObject({ lastChunk: true, text: words })
  })

  it('SubscribeToTask mid-answer gives the remaining appended pieces, the whole answer and the final status', async () => {
    const client = await new ClientFactory({
      transports: [new JsonRpcTransportFactory({})],
    }).createFromUrl(`${base}/a2a/analyst/.well-known/agent-card.json`, '')
    const request = SendMessageRequest.fromJSON({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text: slow }] },
    })
    // The first client leaves after the first piece of the answer; the task goes on.
    let taskId = ''
    let before = ''
    for await (const event of client.sendMessageStream(request)) {
      if (event.payload?.$case === 'task') taskId = event.payload.value.id
      if (event.payload?.$case === 'artifactUpdate' && event.payload.value.append) {
        before = artifactText(event)
        break
      }
    }
    expect(taskId).not.toBe('')
    expect(before.length).toBeGreaterThan(0)
    const appended: string[] = []
    let whole: string | undefined
    let state: TaskState | undefined
    for await (const event of client.resubscribeTask(
      SubscribeToTaskRequest.fromJSON({ id: taskId }),
    )) {
      if (event.payload?.$case === 'artifactUpdate') {
        if (event.payload.value.append) appended.push(artifactText(event))
        else whole = artifactText(event)
      }
      if (event.payload?.$case === 'statusUpdate') state = event.payload.value.status?.state
    }
    // The rest of the answer as it was written (pieces sent while no one listened are missed),
    // then the whole answer, then the task's end.
    expect(appended.length).toBeGreaterThan(1)
    expect(words.endsWith(appended.join(''))).toBe(true)
    expect(words.startsWith(before)).toBe(true)
    expect(whole).toBe(words)
    expect(state).toBe(TaskState.TASK_STATE_COMPLETED)
  })

  it('v0.3 tasks/resubscribe mid-answer gives the remaining artifact-update appends and the final status-update', async () => {
    const rpc = (method: string, params: Record<string, unknown>, signal?: AbortSignal) =>
      fetch(`${base}/a2a/analyst`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
        ...(signal ? { signal } : {}),
      })
    const leaving = new AbortController()
    const started = await rpc(
      'message/stream',
      {
        message: {
          kind: 'message',
          messageId: crypto.randomUUID(),
          role: 'user',
          parts: [{ kind: 'text', text: slow }],
        },
      },
      leaving.signal,
    )
    let taskId = ''
    for await (const event of readSse(started.body!)) {
      const result = (JSON.parse(event.data) as { result?: Record<string, unknown> }).result
      if (result?.kind === 'task') taskId = result.id as string
      if (result?.kind === 'artifact-update' && result.append === true) break
    }
    leaving.abort()
    expect(taskId).not.toBe('')
    const resubscribed = await rpc('tasks/resubscribe', { id: taskId })
    expect(resubscribed.headers.get('content-type')).toMatch(/text\/event-stream/)
    const results: Record<string, unknown>[] = []
    for await (const event of readSse(resubscribed.body!)) {
      const result = (JSON.parse(event.data) as { result?: Record<string, unknown> }).result
      if (result) results.push(result)
    }
    const appended = results.filter(
      (result) => result.kind === 'artifact-update' && result.append === true,
    )
    expect(appended.length).toBeGreaterThan(1)
    const texts = appended.map((result) =>
      (result.artifact as { parts: { text?: string }[] }).parts.map((part) => part.text).join(''),
    )
    expect(words.endsWith(texts.join(''))).toBe(true)
    expect(results.at(-1)).toMatchObject({
      kind: 'status-update',
      final: true,
      status: { state: 'completed' },
    })
  })
})

function artifactText(event: StreamResponse): string {
  if (event.payload?.$case !== 'artifactUpdate') return ''
  return (event.payload.value.artifact?.parts ?? [])
    .map((part) => (part.content?.$case === 'text' ? part.content.value : ''))
    .join('')
}
