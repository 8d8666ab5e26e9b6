import { useAgentStore } from '@baton/surface'
import { useEffect, useMemo, useState } from 'react'
import { parse } from 'yaml'
import { type SavedPlan, serverApi } from '../api/client'
import { useServerData } from '../api/use-server-data'
import { describeError } from '../ui/describe-error'
import { useHashParam } from '../ui/use-hash-param'
import { examplePlan } from './example-plans'
import { MalEditor } from './mal-editor'
import { issuesFromRefusal, type PlanIssue } from './plan-diagnostics'
import { RunDetailView } from './run-detail-view'

function planSource(plan: SavedPlan): string {
  if (typeof plan.source === 'string') return plan.source
  if (typeof plan.yaml === 'string') return plan.yaml
  return JSON.stringify(plan.plan ?? {}, null, 2)
}

type InputField = { name: string; required: boolean }

// A plan's inputs (`{ name: type }` or `{ name: { type, default } }`): one without a default
// must be given.
function inputFields(source: string): InputField[] {
  try {
    const inputs = (parse(source) as { inputs?: unknown } | null)?.inputs
    if (!inputs || typeof inputs !== 'object') return []
    return Object.entries(inputs).map(([name, spec]) => ({
      name,
      required: !(spec && typeof spec === 'object' && 'default' in spec),
    }))
  } catch {
    return []
  }
}

/** Write or pick a MAL plan, run it with inputs, and watch its events and delegation tree. */
export function RunsView() {
  const agents = useAgentStore((state) => state.agents)
  const plans = useServerData(serverApi.listPlans, [])
  const runs = useServerData(serverApi.listRuns, [], { intervalMs: 3000 })
  const [source, setSource] = useState('')
  const [inputs, setInputs] = useState<Record<string, string>>({})
  const [issues, setIssues] = useState<PlanIssue[]>([])
  const [error, setError] = useState<string>()
  const [runId, chooseRun] = useHashParam('run')
  const [starting, setStarting] = useState(false)
  const savedPlans = plans.data ?? []
  const [planIndex, setPlanIndex] = useState<number>()

  // The seeded example (risk-review) first, then the first saved plan, then a made-up one.
  useEffect(() => {
    if (planIndex !== undefined || plans.loading) return
    const preferred = savedPlans.findIndex((plan) => plan.id === 'risk-review')
    const index = preferred >= 0 ? preferred : savedPlans.length > 0 ? 0 : -1
    if (index < 0 && agents.length === 0) return
    setPlanIndex(index)
    setSource(index >= 0 ? planSource(savedPlans[index]!) : examplePlan(agents))
  }, [savedPlans, plans.loading, agents, planIndex])

  const fields = useMemo(() => inputFields(source), [source])
  const [missing, setMissing] = useState<string[]>([])
  const chosenSource =
    planIndex === undefined
      ? undefined
      : planIndex >= 0 && savedPlans[planIndex]
        ? planSource(savedPlans[planIndex]!)
        : examplePlan(agents)
  const edited = chosenSource !== undefined && source !== chosenSource

  const run = async () => {
    setStarting(true)
    setError(undefined)
    setIssues([])
    // A required input left empty is refused here, before anything is sent.
    const unfilled = fields.filter((field) => field.required && !inputs[field.name]?.trim())
    setMissing(unfilled.map((field) => field.name))
    if (unfilled.length > 0) {
      setError(
        `The run did not start: fill in ${unfilled.map((field) => field.name).join(', ')} (the plan gives ${unfilled.length > 1 ? 'them' : 'it'} no default).`,
      )
      setStarting(false)
      return
    }
    try {
      // An optional input left empty takes the plan's default.
      const values = Object.fromEntries(
        fields.flatMap((field) => (inputs[field.name] ? [[field.name, inputs[field.name]]] : [])),
      )
      const id = await serverApi.startRun({ plan: source, inputs: values })
      chooseRun(id)
      runs.reload()
    } catch (failure) {
      const refused = issuesFromRefusal(failure)
      setIssues(refused)
      // The plan's issues are listed (and marked in the editor) once, not again in a sentence.
      setError(
        refused.length > 0
          ? `The run did not start: the plan has ${refused.length === 1 ? 'a problem' : `${refused.length} problems`}, listed above.`
          : `The run did not start: ${describeError(failure)}`,
      )
    } finally {
      setStarting(false)
    }
  }

  return (
    <section className="stack" aria-labelledby="runs-title">
      <h1 id="runs-title">Runs</h1>
      <p className="muted">
        A MAL plan delegates to registered agents by wallet, each step with a budget carved from the
        run's. Edit one, run it, and watch who delegated to whom and what each spent.
      </p>
      <div className="split">
        <div className="stack">
          <div className="row">
            <label htmlFor="plan-pick" style={{ margin: 0 }}>
              Plan
            </label>
            <select
              id="plan-pick"
              style={{ width: 'auto', flex: 1 }}
              value={planIndex ?? -1}
              onChange={(event) => {
                const index = Number(event.target.value)
                setPlanIndex(index)
                const chosen = savedPlans[index]
                setSource(chosen ? planSource(chosen) : examplePlan(agents))
                setIssues([])
              }}
            >
              {savedPlans.map((plan, index) => (
                <option key={plan.id ?? plan.name} value={index}>
                  {plan.name}
                  {edited && index === planIndex ? ' (edited)' : ''}
                </option>
              ))}
              <option value={-1}>
                Example: one delegate, then stop{edited && planIndex === -1 ? ' (edited)' : ''}
              </option>
            </select>
            {edited ? (
              <span className="pill warn" data-plan-edited>
                Edited
              </span>
            ) : null}
          </div>
          <MalEditor
            value={source}
            onChange={(text) => {
              setSource(text)
              // The server's issues were about the text it was sent, not this one.
              setIssues((current) => (current.length > 0 ? [] : current))
            }}
            serverIssues={issues}
          />
          {issues.length > 0 ? (
            <ul className="issues" aria-label="Plan errors">
              {issues.map((issue) => (
                <li key={`${issue.line}:${issue.column}:${issue.message}`}>
                  {issue.line ? `line ${issue.line}: ` : ''}
                  {issue.path ? `${issue.path}: ` : ''}
                  {issue.message}
                </li>
              ))}
            </ul>
          ) : null}
          {fields.map(({ name, required }) => (
            <div key={name}>
              <label htmlFor={`input-${name}`}>
                Input {name} <span className="muted">{required ? '(required)' : '(optional)'}</span>
              </label>
              <input
                id={`input-${name}`}
                value={inputs[name] ?? ''}
                required={required}
                aria-invalid={missing.includes(name) || undefined}
                onChange={(event) => {
                  setInputs({ ...inputs, [name]: event.target.value })
                  setMissing((current) => current.filter((other) => other !== name))
                }}
              />
            </div>
          ))}
          <div className="row">
            <button type="button" onClick={run} disabled={starting || !source.trim()}>
              {starting ? 'Starting…' : 'Run the plan'}
            </button>
          </div>
          {error ? (
            <p className="error-text" role="alert">
              {error}
            </p>
          ) : null}
          <div className="panel">
            <h2 style={{ marginTop: 0, fontSize: '1rem' }}>Recent runs</h2>
            {runs.error ? <p className="error-text">{runs.error}</p> : null}
            {runs.data?.length === 0 ? (
              <p className="muted" data-runs-empty style={{ margin: 0 }}>
                None yet: run a plan and it is listed here, with its status.
              </p>
            ) : null}
            <ul style={{ paddingLeft: '1.1rem', margin: 0 }}>
              {(runs.data ?? []).slice(0, 8).map((summary) => (
                <li key={summary.id} data-run-item={summary.id} data-status={summary.status}>
                  <button
                    type="button"
                    className="ghost"
                    onClick={() => chooseRun(summary.id)}
                    aria-pressed={summary.id === runId}
                  >
                    {summary.planName ?? summary.name ?? summary.id}
                  </button>{' '}
                  <span className="pill">{summary.status}</span>
                </li>
              ))}
            </ul>
          </div>
        </div>
        <div>
          {runId ? (
            <RunDetailView key={runId} runId={runId} onStatus={runs.reload} />
          ) : (
            <p className="muted">Run a plan to see it here.</p>
          )}
        </div>
      </div>
    </section>
  )
}
