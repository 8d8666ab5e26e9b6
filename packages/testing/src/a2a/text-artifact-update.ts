import type { TaskArtifactUpdateEvent } from '@a2a-js/sdk'

/**
 * A `TaskArtifactUpdateEvent` carrying one text part: a piece appended to the artifact
 * (`append: true`, not its last chunk) or the artifact's whole text (`append: false`, its last).
 *
 * @example
 * bus.publish(AgentEvent.artifactUpdate(textArtifactUpdate({ taskId, contextId, artifactId: 'answer', text: 'Hel', append: true })))
 */
export function textArtifactUpdate(options: {
  taskId: string
  contextId: string
  artifactId: string
  text: string
  append: boolean
}): TaskArtifactUpdateEvent {
  return {
    taskId: options.taskId,
    contextId: options.contextId,
    artifact: {
      artifactId: options.artifactId,
      name: options.artifactId,
      description: '',
      parts: [
        {
          content: { $case: 'text', value: options.text },
          metadata: undefined,
          filename: '',
          mediaType: 'text/plain',
        },
      ],
      metadata: undefined,
      extensions: [],
    },
    append: options.append,
    lastChunk: !options.append,
    metadata: undefined,
  }
}
