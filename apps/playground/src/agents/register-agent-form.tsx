import { type AgentInput, signAgentRegistration } from '@baton/core'
import { useAgentStore } from '@baton/surface'
import { type FormEvent, useState } from 'react'
import { privateKeyToAccount } from 'viem/accounts'
import { serverApi } from '../api/client'
import { useServerData } from '../api/use-server-data'
import { describeError } from '../ui/describe-error'
import { exportDevelopmentKeys, loadDevelopmentKeys, newAgentAccount } from './development-keys'
import { hasInjectedWallet, injectedCreator } from './injected-wallet'

const lines = (text: string) =>
  text
    .split(/\n|,/)
    .map((line) => line.trim())
    .filter(Boolean)

/**
 * Registers an agent on the server: the browser makes the agent's key, signs the
 * registration as creator (a development key, or the injected wallet) and as the agent, and
 * shows the server's refusal in words when it refuses.
 */
export function RegisterAgentForm() {
  const upsertAgent = useAgentStore((state) => state.upsertAgent)
  const [useWallet, setUseWallet] = useState(hasInjectedWallet())
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string>()
  const [registered, setRegistered] = useState<{ name: string; wallet: string }>()
  const creatorAddress = privateKeyToAccount(loadDevelopmentKeys().creator).address
  // What this server can run: its providers' models and the tools it can grant.
  const models = useServerData(serverApi.listModels, [])
  const tools = useServerData(serverApi.listTools, [])
  const [toolsText, setToolsText] = useState('')
  const picked = new Set(lines(toolsText))
  // A tool's button adds it to the card, or takes it off again: the buttons show what is listed.
  const toggleTool = (name: string) => {
    const listed = lines(toolsText)
    setToolsText(
      (listed.includes(name) ? listed.filter((entry) => entry !== name) : [...listed, name]).join(
        ', ',
      ),
    )
  }

  const submit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault()
    const form = new FormData(event.currentTarget)
    const text = (name: string) => String(form.get(name) ?? '').trim()
    setBusy(true)
    setError(undefined)
    setRegistered(undefined)
    try {
      const creator = useWallet
        ? await injectedCreator()
        : privateKeyToAccount(loadDevelopmentKeys().creator)
      const agentAccount = newAgentAccount()
      const now = new Date().toISOString()
      const agent: AgentInput = {
        id: text('id'),
        wallet: agentAccount.address,
        creator: creator.address,
        name: text('name'),
        description: text('capabilityDescription'),
        type: text('type') as AgentInput['type'],
        model: text('model'),
        tools: lines(text('tools')),
        createdAt: now,
        updatedAt: now,
        agentCard: {
          tagline: text('tagline'),
          capabilityDescription: text('capabilityDescription'),
          trustTier: text('trustTier') as 'low' | 'medium' | 'high',
          canDelegate: form.get('canDelegate') === 'on',
          examples: lines(text('examples')),
        },
      }
      // Signed for this server's registry only: another server refuses the body.
      const { registry } = await serverApi.getRuntime()
      const body = await signAgentRegistration(agent, { creator, agentAccount, registry })
      const answer = await serverApi.registerAgent(body)
      const stored = (answer as { agent?: unknown })?.agent ?? answer
      try {
        upsertAgent(stored)
      } catch {
        upsertAgent(agent)
      }
      setRegistered({ name: agent.name, wallet: agentAccount.address })
    } catch (failure) {
      setError(`The agent was not registered: ${describeError(failure)}`)
    } finally {
      setBusy(false)
    }
  }

  return (
    <form className="panel" onSubmit={submit} aria-label="Register an agent">
      <h2 style={{ marginTop: 0 }}>Register an agent</h2>
      <div className="split">
        <div>
          <label htmlFor="register-name">Name</label>
          <input id="register-name" name="name" required placeholder="Release Notes Writer" />
          <label htmlFor="register-id">Id (a slug)</label>
          <input id="register-id" name="id" required placeholder="release-notes" />
          <label htmlFor="register-type">Type</label>
          <select id="register-type" name="type" defaultValue="specialist">
            {['specialist', 'worker', 'reviewer', 'assistant', 'orchestrator'].map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
          <label htmlFor="register-model">Model</label>
          <input
            id="register-model"
            name="model"
            defaultValue="offline:default"
            required
            list="register-model-options"
          />
          <datalist id="register-model-options">
            {(models.data ?? []).flatMap((provider) =>
              provider.models.map((model) => <option key={model} value={model} />),
            )}
          </datalist>
          <label htmlFor="register-tools">Tools (comma-separated)</label>
          <input
            id="register-tools"
            name="tools"
            placeholder="none"
            value={toolsText}
            onChange={(event) => setToolsText(event.target.value)}
          />
          <fieldset
            className="row"
            aria-label="Tools this server can grant"
            style={{ flexWrap: 'wrap', gap: 4, border: 0, padding: 0, margin: '0.3rem 0' }}
          >
            {(tools.data ?? []).map((tool) => (
              <button
                key={tool.name}
                type="button"
                className="example small"
                title={
                  tool.grantedWhen
                    ? `${tool.description} Granted ${tool.grantedWhen}.`
                    : tool.description
                }
                aria-pressed={picked.has(tool.name)}
                style={
                  picked.has(tool.name)
                    ? { background: 'var(--accent)', color: 'var(--accent-text)' }
                    : undefined
                }
                onClick={() => toggleTool(tool.name)}
              >
                {tool.name}
              </button>
            ))}
          </fieldset>
        </div>
        <div>
          <label htmlFor="register-tagline">Tagline</label>
          <input
            id="register-tagline"
            name="tagline"
            maxLength={200}
            placeholder="Turns merged PRs into release notes"
          />
          <label htmlFor="register-capability">Capability description</label>
          <textarea id="register-capability" name="capabilityDescription" rows={2} />
          <label htmlFor="register-trust">Trust tier</label>
          <select id="register-trust" name="trustTier" defaultValue="low">
            <option>low</option>
            <option>medium</option>
            <option>high</option>
          </select>
          <label htmlFor="register-examples">Example prompts (one a line)</label>
          <textarea id="register-examples" name="examples" rows={2} />
          <label className="row" style={{ color: 'inherit' }}>
            <input type="checkbox" name="canDelegate" style={{ width: 'auto' }} /> Can delegate to
            other agents
          </label>
        </div>
      </div>
      <fieldset style={{ border: '1px solid var(--border)', borderRadius: 6, marginTop: '0.8rem' }}>
        <legend>Signing keys</legend>
        {hasInjectedWallet() ? (
          <label className="row" style={{ color: 'inherit' }}>
            <input
              type="checkbox"
              checked={useWallet}
              onChange={(event) => setUseWallet(event.target.checked)}
              style={{ width: 'auto' }}
            />
            Sign as creator with my browser wallet
          </label>
        ) : null}
        <p className="muted" style={{ margin: '0.3rem 0' }}>
          <strong>Development keys</strong>, made and kept in this browser (never use them for real
          funds): creator <code style={{ wordBreak: 'break-all' }}>{creatorAddress}</code>
          {useWallet ? ' (not used: the browser wallet signs as creator)' : ''}; each new agent gets
          a key of its own.
        </p>
        <a href={exportDevelopmentKeys()} download="baton-development-keys.json">
          Export the development keys
        </a>
      </fieldset>
      <div className="row" style={{ marginTop: '0.8rem' }}>
        <button type="submit" disabled={busy}>
          {busy ? 'Signing and registering…' : 'Sign and register'}
        </button>
      </div>
      {error ? (
        <p className="error-text" role="alert">
          {error}
        </p>
      ) : null}
      {registered ? (
        <p role="status" className="pill ok" style={{ fontSize: '0.9rem' }}>
          Registered {registered.name}:{' '}
          <a href={`/agent/${registered.wallet}`} target="_blank" rel="noreferrer">
            GET /agent/{registered.wallet}
          </a>
        </p>
      ) : null}
    </form>
  )
}
