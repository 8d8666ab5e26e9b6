/** A failed request, in words, where it happened. */
export function ErrorText({ error }: { error: string | undefined }) {
  if (!error) return null
  return (
    <p className="error-text" role="alert">
      {error}
    </p>
  )
}
