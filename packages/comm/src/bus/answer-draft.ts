import { ValidationError } from '@baton/core'
import type { EnvelopeDraft } from '../envelope/build-envelope'
import type { Envelope } from '../envelope/envelope'
import { recipient } from './recipient'

/**
 * The draft of a forward of `previous` to `to`: sent by its recipient, with its content unless
 * `content` replaces it. Bad arguments are a `ValidationError` naming the message.
 *
 * @example
 * const draft = forwardDraft(message, 'reviewer')
 */
export function forwardDraft(
  previous: Envelope,
  to: string | { agentId: string },
  content?: string,
): EnvelopeDraft {
  const agentId = typeof to === 'string' ? to : to?.agentId
  if (typeof agentId !== 'string' || agentId === '' || !isOptionalText(content)) {
    throw new ValidationError(`forward of message "${previous.id}"`, [
      typeof agentId !== 'string' || agentId === ''
        ? { path: 'to', message: 'expected an agent id (a non-empty string)' }
        : { path: 'content', message: 'expected a string' },
    ])
  }
  return {
    // Frozen {agentId} objects: the recipient of the message is the sender of the forward.
    from: previous.to,
    to: recipient(agentId),
    content: content ?? previous.content,
    type: previous.type === 'reply' ? 'direct' : previous.type,
  }
}

/**
 * The draft of a reply to `previous`, from its recipient to its sender.
 *
 * @example
 * const draft = replyDraft(message, 'on it')
 */
export function replyDraft(previous: Envelope, content: string): EnvelopeDraft {
  if (typeof content !== 'string') {
    throw new ValidationError(`reply to message "${previous.id}"`, [
      { path: 'content', message: 'expected a string' },
    ])
  }
  return {
    from: previous.to,
    to: recipient(previous.from.agentId),
    content,
    type: 'reply',
  }
}

/**
 * A forward or reply: the correlation and hop come from the message it answers, so an
 * answer can neither leave a held or stopped chain nor make it younger.
 *
 * @example
 * const draft = answering(message, replyDraft(message, 'on it'))
 */
export function answering(previous: Envelope, draft: EnvelopeDraft): EnvelopeDraft {
  draft.correlationId = previous.correlationId
  draft.hop = previous.hop + 1
  draft.inReplyTo = previous.id
  return draft
}

function isOptionalText(value: unknown): boolean {
  return value === undefined || typeof value === 'string'
}
