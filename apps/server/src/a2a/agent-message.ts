import { type Message, type Part, Role } from '@a2a-js/sdk'

/** A text part, as the SDK's types spell one out. */
export function textPart(text: string): Part {
  return {
    content: { $case: 'text', value: text },
    metadata: undefined,
    filename: '',
    mediaType: 'text/plain',
  }
}

/**
 * The agent's message of a task's status (why it was rejected, why it failed): one text part,
 * one id per task (`<taskId>-status`).
 *
 * @example
 * publishStatus(TaskState.TASK_STATE_FAILED, agentMessage(context, 'The server stopped.'))
 */
export function agentMessage(task: { taskId: string; contextId: string }, text: string): Message {
  return {
    messageId: `${task.taskId}-status`,
    contextId: task.contextId,
    taskId: task.taskId,
    role: Role.ROLE_AGENT,
    parts: [textPart(text)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  }
}
