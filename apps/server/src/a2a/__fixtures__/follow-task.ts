import {
  type Part,
  SendMessageRequest,
  SubscribeToTaskRequest,
  type Task,
  type TaskState,
} from '@a2a-js/sdk'
import type { Client } from '@a2a-js/sdk/client'

/** Sends `text` as a new task and answers at once (`returnImmediately`), while it runs. */
export async function startTask(client: Client, text: string): Promise<Task> {
  return (await client.sendMessage(
    SendMessageRequest.fromJSON({
      message: { messageId: crypto.randomUUID(), role: 'ROLE_USER', parts: [{ text }] },
      configuration: { returnImmediately: true },
    }),
  )) as Task
}

/**
 * Follows a task (`SubscribeToTask`) to its end, collecting the states and the artifact texts
 * it is told about; `states` and `texts` fill in as it goes, `done` resolves at the end.
 * `answer()` is the artifacts' text as a client holds it: a task replaces it, an artifact
 * update is appended to it (`append`) or replaces it.
 *
 * @example
 * const following = followTask(client, task.id)
 * await following.done
 * expect(following.states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED)
 */
export function followTask(client: Client, taskId: string) {
  const states: TaskState[] = []
  const texts: string[] = []
  let answer = ''
  const textOf = (parts: readonly Part[] = []) =>
    parts.map((part) => (part.content?.$case === 'text' ? part.content.value : '')).join('')
  const done = (async () => {
    for await (const event of client.resubscribeTask(
      SubscribeToTaskRequest.fromJSON({ id: taskId }),
    )) {
      const payload = event.payload
      if (payload?.$case === 'statusUpdate' && payload.value.status?.state !== undefined)
        states.push(payload.value.status.state)
      if (payload?.$case === 'task') {
        if (payload.value.status?.state !== undefined) states.push(payload.value.status.state)
        answer = payload.value.artifacts.map((artifact) => textOf(artifact.parts)).join('')
      }
      if (payload?.$case === 'artifactUpdate') {
        for (const part of payload.value.artifact?.parts ?? [])
          if (part.content?.$case === 'text') texts.push(part.content.value)
        const text = textOf(payload.value.artifact?.parts)
        answer = payload.value.append ? answer + text : text
      }
    }
  })()
  return { states, texts, done, answer: () => answer }
}
