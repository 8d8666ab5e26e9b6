import { CopyButton } from '../ui/copy-button'
import type { ReceiptCheck } from './receipt-check'
import { shortenHex } from './shorten-hex'

function Hex({ value, what }: { value: string; what: string }) {
  return (
    <>
      <code title={value} data-full={value}>
        {shortenHex(value)}
      </code>{' '}
      <CopyButton value={value} label={`Copy the ${what}`} />
    </>
  )
}

const headings = {
  verified: 'Receipt verified',
  invalid: 'Receipt invalid',
  missing: 'No receipt',
  pending: 'No receipt yet',
  unreadable: 'Receipt not checked',
} as const

const marks = { verified: '✓', invalid: '✕', missing: '–', pending: '…', unreadable: '!' } as const

/**
 * A run's receipt as this browser checked it: verified (signer and plan hash), invalid (the
 * field and why), or none.
 */
export function RunReceiptView({ check }: { check: ReceiptCheck | undefined }) {
  if (!check) {
    return (
      <section className="receipt checking" aria-label="Run receipt" data-receipt-state="checking">
        <p className="receipt-head muted">Checking the run's receipt…</p>
      </section>
    )
  }
  return (
    <section
      className={`receipt ${check.state}`}
      aria-label="Run receipt"
      data-receipt-state={check.state}
    >
      <p className="receipt-head">
        <span className="receipt-mark" aria-hidden="true">
          {marks[check.state]}
        </span>
        <strong>{headings[check.state]}</strong>
        {check.state === 'verified' || check.state === 'invalid' ? (
          <span className="muted">checked in this browser</span>
        ) : null}
      </p>
      {check.state === 'verified' ? (
        <dl className="receipt-facts">
          <dt>Signed by</dt>
          <dd data-signer={check.signer}>
            <Hex value={check.signer} what="signer address" />
            {check.trust === 'receipt' ? (
              <span className="muted receipt-note">
                as the receipt names it: the server did not say its runtime address, so compare it
                with yours
              </span>
            ) : (
              <span className="muted receipt-note">the runtime address this server publishes</span>
            )}
          </dd>
          <dt>Plan hash</dt>
          <dd data-plan-hash={check.planHash}>
            <Hex value={check.planHash} what="plan hash" />
          </dd>
          <dt>Covers</dt>
          <dd>
            {check.steps} {check.steps === 1 ? 'step' : 'steps'}, run {check.runStatus}
            {check.matched.length > 0 ? `; the ${check.matched.join(' and ')} shown here` : ''}
          </dd>
        </dl>
      ) : check.state === 'invalid' ? (
        <dl className="receipt-facts">
          <dt>Field</dt>
          <dd>
            <code data-receipt-field={check.field}>{check.field}</code>{' '}
            <span className="pill bad">{check.code}</span>
          </dd>
          <dt>Why</dt>
          <dd>{check.message}</dd>
        </dl>
      ) : (
        <p className="receipt-note muted">{check.message}</p>
      )}
    </section>
  )
}
