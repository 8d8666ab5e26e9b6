import type { Task, TaskState } from '@a2a-js/sdk'

/**
 * A task in `state`, stamped now, with one text artifact when `text` is given: what the SDK
 * hands a task store to save.
 *
 * @example
 * await store.save(taskIn(id, TaskState.TASK_STATE_COMPLETED, 'the answer'), context)
 */
export const taskIn = (id: string, state: TaskState, text = ''): Task =>
  ({
    id,
    contextId: `ctx-${id}`,
    status: { state, message: undefined, timestamp: new Date().toISOString() },
    artifacts: text
      ? [
          {
            artifactId: 'a',
            name: 'answer',
            description: '',
            parts: [
              {
                content: { $case: 'text', value: text },
                mediaType: 'text/plain',
                filename: '',
                metadata: {},
              },
            ],
            metadata: {},
            extensions: [],
          },
        ]
      : [],
    history: [],
    metadata: {},
  }) as unknown as Task
