// @vitest-environment happy-dom
import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { useState } from 'react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { agents } from '../__fixtures__/agents'
import { MentionInput } from './mention-input'

afterEach(cleanup)

function Harness({ onSubmit }: { onSubmit: (text: string) => void }) {
  const [value, setValue] = useState('')
  return (
    <MentionInput
      value={value}
      onChange={setValue}
      onSubmit={() => onSubmit(value)}
      agents={agents}
    />
  )
}

function type(box: HTMLTextAreaElement, text: string) {
  fireEvent.change(box, { target: { value: text, selectionStart: text.length } })
}

describe('MentionInput', () => {
  it('opens the list on @ and picks with the arrow keys and Enter, without sending', () => {
    const onSubmit = vi.fn()
    render(<Harness onSubmit={onSubmit} />)
    const box = screen.getByRole('combobox') as HTMLTextAreaElement
    type(box, '@')
    expect(screen.getAllByRole('option')).toHaveLength(agents.length)
    expect(screen.getAllByRole('option')[0]!.getAttribute('aria-selected')).toBe('true')
    fireEvent.keyDown(box, { key: 'ArrowDown' })
    fireEvent.keyDown(box, { key: 'ArrowDown' })
    expect(screen.getAllByRole('option')[2]!.getAttribute('aria-selected')).toBe('true')
    expect(box.getAttribute('aria-activedescendant')).toBe(screen.getAllByRole('option')[2]!.id)
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(box.value).toBe('@Reviewer ')
    expect(onSubmit).not.toHaveBeenCalled()
  })

  it('wraps round with ArrowUp, closes on Escape, and Enter then sends', () => {
    const onSubmit = vi.fn()
    render(<Harness onSubmit={onSubmit} />)
    const box = screen.getByRole('combobox') as HTMLTextAreaElement
    type(box, 'hi @')
    fireEvent.keyDown(box, { key: 'ArrowUp' })
    expect(screen.getAllByRole('option').at(-1)!.getAttribute('aria-selected')).toBe('true')
    fireEvent.keyDown(box, { key: 'Escape' })
    expect(screen.queryByRole('listbox')).toBeNull()
    fireEvent.keyDown(box, { key: 'Enter' })
    expect(onSubmit).toHaveBeenCalledWith('hi @')
  })

  it('narrows the list as one types and picks with Tab', () => {
    render(<Harness onSubmit={() => undefined} />)
    const box = screen.getByRole('combobox') as HTMLTextAreaElement
    type(box, 'ask @inc')
    expect(screen.getAllByRole('option').map((option) => option.textContent)).toEqual([
      expect.stringContaining('Incident Analyst'),
    ])
    act(() => {
      fireEvent.keyDown(box, { key: 'Tab' })
    })
    expect(box.value).toBe('ask @Incident Analyst ')
  })
})
