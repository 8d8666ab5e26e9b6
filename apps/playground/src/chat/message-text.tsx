import { Fragment } from 'react'

// `[[tool:…]]`, `[[answer:…]]`: directives the offline model follows, written into a prompt.
const directives = /(\[\[[^\]]*\]\])/
const isDirective = (part: string) => /^\[\[[^\]]*\]\]$/.test(part)

/**
 * A message as a person typed it, the offline model's directives set apart (small, muted) so
 * the task reads first and the directives stay visible for what they are.
 */
export function MessageText({ text }: { text: string }) {
  const parts = text.split(directives)
  return (
    <>
      {parts.map((part, index) =>
        isDirective(part) ? (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text
          <code key={index} className="directive" title="A directive for the offline model">
            {part}
          </code>
        ) : (
          // biome-ignore lint/suspicious/noArrayIndexKey: the parts of one fixed text
          <Fragment key={index}>{part}</Fragment>
        ),
      )}
    </>
  )
}
