import type { TaskArtifactUpdateEvent } from '@a2a-js/sdk'
import { a2aPartsText } from './a2a-parts-text'

/**
 * Follows a streamed task's artifact updates and hands on the text they add, in order: the
 * answer is the artifacts' texts joined by a line break (as a completed task's answer is read),
 * and each update that extends it gives the new end. An update that rewrites what was already
 * handed on (a last update that replaces the pieces with the whole answer, as Baton servers
 * send) gives only what it adds past that, if anything.
 *
 * @example
 * const text = new A2AStreamedText((piece) => onText(piece))
 * text.update(event.payload.value) // for each artifactUpdate
 */
export class A2AStreamedText {
  readonly #onText: (text: string) => void
  readonly #artifacts = new Map<string, string>()
  // What was handed on so far, and whether it is the whole answer as it stands now.
  #sent = ''
  #inStep = true

  constructor(onText: (text: string) => void) {
    this.#onText = onText
  }

  update(event: TaskArtifactUpdateEvent): void {
    const id = event.artifact?.artifactId ?? ''
    const text = a2aPartsText(event.artifact?.parts ?? [])
    const before = this.#artifacts.get(id)
    const last = [...this.#artifacts.keys()].at(-1)
    if (event.append && before !== undefined) {
      this.#artifacts.set(id, before + text)
      // The common case, a piece added to the answer's end: handed on as it is.
      if (this.#inStep && id === last) {
        this.#send(text)
        return
      }
    } else {
      this.#artifacts.set(id, text)
    }
    const whole = [...this.#artifacts.values()].join('\n')
    this.#inStep = whole.startsWith(this.#sent)
    if (this.#inStep) this.#send(whole.slice(this.#sent.length))
  }

  #send(text: string): void {
    if (text.length === 0) return
    this.#sent += text
    this.#onText(text)
  }
}
