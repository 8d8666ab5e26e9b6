import type { Message, Part, SendMessageConfiguration } from '@a2a-js/sdk'
import { ContentTypeNotSupportedError, PushNotificationNotSupportedError } from '@a2a-js/sdk/errors'

/**
 * The media types a hosted agent reads (text, and files of these given inline) and answers in:
 * its card's `defaultInputModes` and `defaultOutputModes` (made by `@baton/core`'s
 * `toA2AAgentCard`; the card's test holds the two together).
 */
export const HOSTED_AGENT_MODES: readonly string[] = ['text/plain', 'application/json']

const READABLE_FILES: ReadonlySet<string> = new Set(HOSTED_AGENT_MODES)
const ANSWER_MODES = HOSTED_AGENT_MODES
const utf8 = new TextDecoder()

/**
 * What a hosted agent is given of a message: its text parts, its data parts as JSON, and the
 * files of text (`text/plain`, `application/json`) it carries inline, decoded as UTF-8, one
 * line apart.
 *
 * @example
 * textOfParts(message.parts) // 'review this\n{"amount":12}'
 */
export function textOfParts(parts: readonly Part[]): string {
  return parts
    .flatMap((part) => {
      const content = part.content
      if (content?.$case === 'text') return [content.value]
      if (content?.$case === 'data') return [JSON.stringify(content.value)]
      if (content?.$case === 'raw' && readableFile(part)) return [utf8.decode(content.value)]
      return []
    })
    .join('\n')
}

/**
 * The refusal (`-32005`, content type not supported) of a message with a part its hosted
 * agent would not read: a file by URL (the server fetches none), or inline of a media type
 * other than its card's input modes. Such a part would be dropped, and the agent would answer
 * (and be charged for) a message without it. Undefined when every part is read.
 *
 * @example
 * const refusal = unreadablePart(params.message)
 * if (refusal) throw refusal
 */
export function unreadablePart(message: Message): Error | undefined {
  for (const [index, part] of message.parts.entries()) {
    const content = part.content
    if (content?.$case === 'text' || content?.$case === 'data') continue
    if (content?.$case === 'raw' && readableFile(part)) continue
    const field = `params.message.parts[${index}]`
    const type = part.mediaType || 'no media type'
    const what = content?.$case === 'url' ? `a file by URL (${type})` : `a file of ${type}`
    return new ContentTypeNotSupportedError({
      message: `${field} is ${what}: a hosted agent reads text and data parts, and files of ${[...READABLE_FILES].join(' or ')} given inline (raw); it fetches no URL.`,
      metadata: { field },
    })
  }
  return undefined
}

/**
 * The refusal (`-32005`) of a request whose `acceptedOutputModes` take none of the media types
 * a hosted agent answers in (its card's output modes; `text/*` and `*\/*` take them too):
 * the agent would run, and be charged for, an answer its client said it cannot use.
 * Undefined when they take one, or say nothing.
 *
 * @example
 * unacceptedAnswer({ acceptedOutputModes: ['image/png'] }) // ContentTypeNotSupportedError
 */
export function unacceptedAnswer(
  configuration: SendMessageConfiguration | undefined,
): Error | undefined {
  const accepted = configuration?.acceptedOutputModes ?? []
  if (accepted.length === 0) return undefined
  const takes = (mode: string) => {
    const type = baseType(mode)
    return (
      type === '*/*' ||
      ANSWER_MODES.some((answer) => answer === type || `${answer.split('/')[0]}/*` === type)
    )
  }
  if (accepted.some(takes)) return undefined
  return new ContentTypeNotSupportedError({
    message: `params.configuration.acceptedOutputModes (${accepted.join(', ')}) takes none of the media types a hosted agent answers in: ${ANSWER_MODES.join(', ')}.`,
    metadata: { field: 'params.configuration.acceptedOutputModes' },
  })
}

/**
 * The refusal (`-32003`) of a message that asks for push notifications: a hosted agent's card
 * says it sends none (`capabilities.pushNotifications: false`), and a client told nothing
 * would wait for a call that never comes. Undefined when it asks for none.
 *
 * @example
 * unsupportedPushNotifications({ taskPushNotificationConfig: { url: 'https://…' } }) // PushNotificationNotSupportedError
 */
export function unsupportedPushNotifications(
  configuration: SendMessageConfiguration | undefined,
): Error | undefined {
  if (!configuration?.taskPushNotificationConfig) return undefined
  return new PushNotificationNotSupportedError({
    message:
      'params.configuration.taskPushNotificationConfig (v0.3: pushNotificationConfig): a hosted agent sends no push notifications (its card says capabilities.pushNotifications: false). Follow the task with SendStreamingMessage or SubscribeToTask, or poll it with GetTask.',
    metadata: { field: 'params.configuration.taskPushNotificationConfig' },
  })
}

function baseType(mediaType: string): string {
  return mediaType.split(';')[0]?.trim().toLowerCase() ?? ''
}

function readableFile(part: Part): boolean {
  return READABLE_FILES.has(baseType(part.mediaType))
}
