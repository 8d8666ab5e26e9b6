import type { Message, Part } from '@a2a-js/sdk'
import { ContentTypeNotSupportedError } from '@a2a-js/sdk/errors'

/** The media types of a file a hosted agent reads, given inline (`raw`): its card's input modes. */
const READABLE_FILES: ReadonlySet<string> = new Set(['text/plain', 'application/json'])
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

function readableFile(part: Part): boolean {
  const type = part.mediaType.split(';')[0]?.trim().toLowerCase() ?? ''
  return READABLE_FILES.has(type)
}
