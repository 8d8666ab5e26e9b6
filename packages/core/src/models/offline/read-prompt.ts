import type { LanguageModelV3Prompt, LanguageModelV3ToolResultOutput } from '@ai-sdk/provider'

/**
 * Provider options that mark a message as recalled memory. The offline model reads no
 * directives from such messages, so a directive from an earlier run is not replayed.
 */
export const memoryMessageOptions = { baton: { memory: true } } as const

export type PromptView = {
  system: string
  /** Text of the user messages that are not recalled memory, oldest first. */
  userTexts: string[]
  toolResults: { toolName: string; output: string }[]
  characters: number
}

/**
 * What the offline model needs from a prompt: system text, user texts, tool results so far,
 * and the prompt's size in characters (which drives its token usage).
 *
 * @example
 * readPrompt([{ role: 'system', content: 'Be brief.' }]).system // 'Be brief.'
 */
export function readPrompt(prompt: LanguageModelV3Prompt): PromptView {
  const view: PromptView = { system: '', userTexts: [], toolResults: [], characters: 0 }
  const systems: string[] = []
  for (const message of prompt) {
    const recalled = message.providerOptions?.baton?.memory === true
    if (message.role === 'system') {
      systems.push(message.content)
      view.characters += message.content.length
      continue
    }
    const texts: string[] = []
    for (const part of message.content) {
      if (part.type === 'tool-result') {
        const output = renderOutput(part.output)
        view.characters += output.length
        view.toolResults.push({ toolName: part.toolName, output })
        continue
      }
      if (part.type === 'text' || part.type === 'reasoning') texts.push(part.text)
      view.characters += partCharacters(part)
    }
    if (message.role === 'user' && !recalled) view.userTexts.push(texts.join('\n'))
  }
  view.system = systems.join('\n')
  return view
}

/**
 * `readPrompt(prompt).characters` alone, with nothing else built: what a budget's estimate of a
 * call's input tokens reads before every call.
 *
 * @example
 * promptCharacters([{ role: 'system', content: 'Be brief.' }]) // 9
 */
export function promptCharacters(prompt: LanguageModelV3Prompt): number {
  let characters = 0
  for (const message of prompt) {
    if (message.role === 'system') {
      characters += message.content.length
      continue
    }
    for (const part of message.content) characters += partCharacters(part)
  }
  return characters
}

type PromptPart = Exclude<LanguageModelV3Prompt[number]['content'], string>[number]

function partCharacters(part: PromptPart): number {
  switch (part.type) {
    case 'text':
    case 'reasoning':
      return part.text.length
    case 'tool-call':
      return part.toolName.length + JSON.stringify(part.input ?? {}).length
    case 'tool-result':
      return renderOutput(part.output).length
    default:
      return 0
  }
}

function renderOutput(output: LanguageModelV3ToolResultOutput): string {
  switch (output.type) {
    case 'text':
      return output.value
    case 'error-text':
      return `error: ${output.value}`
    case 'json':
      return JSON.stringify(output.value)
    case 'error-json':
      return `error: ${JSON.stringify(output.value)}`
    case 'execution-denied':
      return `denied${output.reason ? `: ${output.reason}` : ''}`
    case 'content':
      // Text as it is; an image or file as a short note, not pages of base64.
      return output.value
        .map((part) => {
          if (part.type === 'text') return part.text
          if ('data' in part && typeof part.data === 'string') {
            const bytes = Math.floor((part.data.length * 3) / 4)
            return `[${'mediaType' in part ? part.mediaType : 'file'}, ${bytes} bytes]`
          }
          return `[${part.type}]`
        })
        .join(' ')
    default:
      return JSON.stringify(output)
  }
}

/** The agent's name, type and persona from the system prompt `runAgent` builds. */
export function readIdentity(system: string): { name: string; type: string; persona: string } {
  const match = /You are (.+?), an? ([a-z-]+) agent\./.exec(system)
  if (!match) return { name: 'Assistant', type: 'assistant', persona: '' }
  return { name: match[1]!, type: match[2]!, persona: system.slice(0, match.index).trim() }
}
