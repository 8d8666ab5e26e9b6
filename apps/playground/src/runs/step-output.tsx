import type { StepTextView } from './use-run-events'

/**
 * The text of each step whose model streams it, as it arrives (live `step-delta` events): a
 * person sees the answer being written instead of nothing until the step finishes.
 *
 * @example
 * <StepOutput texts={texts} nameOf={nameOf} />
 */
export function StepOutput(props: {
  texts: StepTextView[]
  nameOf: (wallet: string) => string | undefined
}) {
  if (props.texts.length === 0) return null
  return (
    <section aria-labelledby="step-output-heading">
      <h3 id="step-output-heading" style={{ fontSize: '1rem', margin: '0 0 0.3rem' }}>
        Step output
      </h3>
      <div className="stack" aria-live="polite">
        {props.texts.map((text) => (
          <div
            key={text.path}
            className="bubble"
            data-step-path={text.path}
            data-step-text={text.done ? 'done' : 'writing'}
          >
            <div className="muted" style={{ fontSize: '0.8rem' }}>
              {text.path} ({text.op}) · {props.nameOf(text.wallet) ?? text.wallet}
              {text.done ? '' : ' · writing…'}
            </div>
            <div style={{ whiteSpace: 'pre-wrap' }}>{text.text}</div>
          </div>
        ))}
      </div>
    </section>
  )
}
