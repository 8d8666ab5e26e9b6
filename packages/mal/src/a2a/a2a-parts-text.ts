import type { Part } from '@a2a-js/sdk'

/**
 * The text of some A2A parts: text parts as they are, data parts as JSON, one per line.
 *
 * @example
 * a2aPartsText(message.parts) // 'hello back\n{"ok":true}'
 */
export function a2aPartsText(parts: readonly Part[]): string {
  return parts
    .flatMap((part) => {
      if (part.content?.$case === 'text') return [part.content.value]
      if (part.content?.$case === 'data') return [JSON.stringify(part.content.value)]
      return []
    })
    .join('\n')
}
