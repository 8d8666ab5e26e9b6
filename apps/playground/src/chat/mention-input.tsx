import type { Agent } from '@baton/core'
import { type KeyboardEvent, useId, useRef, useState } from 'react'
import { applyMention, findMentionQuery, suggestMentions } from './mention-autocomplete'

export type MentionInputProps = {
  value: string
  onChange: (value: string) => void
  onSubmit: () => void
  agents: readonly Agent[]
  disabled?: boolean
}

/**
 * A message box where `@` opens a list of agents and swarms: arrows move, Enter or Tab
 * picks, Escape closes; Enter without the list sends.
 */
export function MentionInput({ value, onChange, onSubmit, agents, disabled }: MentionInputProps) {
  const listId = useId()
  const textarea = useRef<HTMLTextAreaElement>(null)
  const [caret, setCaret] = useState(value.length)
  const [active, setActive] = useState(0)
  const [dismissed, setDismissed] = useState<number>()
  const mention = findMentionQuery(value, caret)
  const suggestions =
    mention && dismissed !== mention.start ? suggestMentions(agents, mention.query) : []
  const open = suggestions.length > 0
  const selected = Math.min(active, suggestions.length - 1)

  const pick = (agent: Agent) => {
    if (!mention) return
    const next = applyMention(value, mention, agent)
    onChange(next.text)
    setCaret(next.caret)
    setActive(0)
    requestAnimationFrame(() => {
      textarea.current?.focus()
      textarea.current?.setSelectionRange(next.caret, next.caret)
    })
  }

  const onKeyDown = (event: KeyboardEvent<HTMLTextAreaElement>) => {
    if (open) {
      if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
        event.preventDefault()
        const step = event.key === 'ArrowDown' ? 1 : -1
        setActive((selected + step + suggestions.length) % suggestions.length)
        return
      }
      if (event.key === 'Enter' || event.key === 'Tab') {
        event.preventDefault()
        pick(suggestions[selected]!)
        return
      }
      if (event.key === 'Escape') {
        event.preventDefault()
        setDismissed(mention?.start)
        return
      }
    }
    if (event.key === 'Enter' && !event.shiftKey) {
      event.preventDefault()
      onSubmit()
    }
  }

  return (
    <div className="mention-input">
      {open ? (
        <div
          className="mention-list"
          id={listId}
          role="listbox"
          tabIndex={-1}
          aria-label="Agents and swarms"
        >
          {suggestions.map((agent, index) => (
            <div
              key={agent.id}
              id={`${listId}-${index}`}
              role="option"
              tabIndex={-1}
              aria-selected={index === selected}
              onMouseDown={(event) => {
                event.preventDefault()
                pick(agent)
              }}
            >
              <strong>{agent.name}</strong>{' '}
              <span className={index === selected ? '' : 'muted'}>
                {agent.id.startsWith('swarm_') ? 'swarm' : agent.type}
                {agent.agentCard.tagline && agent.agentCard.tagline !== agent.name
                  ? ` · ${agent.agentCard.tagline}`
                  : ''}
              </span>
            </div>
          ))}
        </div>
      ) : null}
      <label className="sr-only" htmlFor={`${listId}-input`}>
        Message
      </label>
      <textarea
        id={`${listId}-input`}
        ref={textarea}
        rows={2}
        value={value}
        disabled={disabled}
        placeholder="Type @ to pick an agent or swarm, then the task. Enter sends."
        role="combobox"
        aria-expanded={open}
        aria-controls={listId}
        aria-autocomplete="list"
        aria-activedescendant={open ? `${listId}-${selected}` : undefined}
        onChange={(event) => {
          onChange(event.target.value)
          setCaret(event.target.selectionStart)
          setDismissed(undefined)
        }}
        onSelect={(event) => setCaret(event.currentTarget.selectionStart)}
        onKeyDown={onKeyDown}
      />
    </div>
  )
}
