import { useState } from 'react'

/** A small button that copies a value (an address, a hash) and says so for a moment. */
export function CopyButton({ value, label }: { value: string; label: string }) {
  const [copied, setCopied] = useState<'yes' | 'no'>()
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(value)
      setCopied('yes')
    } catch {
      // A page without clipboard permission still shows the full value in the title.
      setCopied('no')
    }
    setTimeout(() => setCopied(undefined), 1500)
  }
  return (
    <button type="button" className="ghost small" aria-label={label} title={value} onClick={copy}>
      {copied === 'yes' ? 'Copied' : copied === 'no' ? 'Not copied' : 'Copy'}
    </button>
  )
}
