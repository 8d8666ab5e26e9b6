// @vitest-environment node

import { renderToString } from 'react-dom/server'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { analyst } from '../__fixtures__/agents'
import { createBatonStores } from '../stores/create-baton-stores'
import { BatonProvider } from './baton-provider'
import { useAgentStore } from './use-agent-store'

function Names() {
  return <p>{useAgentStore((state) => state.agents.map((agent) => agent.name).join(', '))}</p>
}

afterEach(() => vi.restoreAllMocks())

describe('useBatonStores during a server render', () => {
  it('renders from the provider’s stores without a warning', async () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    const stores = createBatonStores({ agents: [analyst] })
    expect(
      renderToString(
        <BatonProvider stores={stores}>
          <Names />
        </BatonProvider>,
      ),
    ).toContain('Analyst')
    expect(warn).not.toHaveBeenCalled()
    await stores.bus.close()
  })

  it('warns once, naming BatonProvider, when the module-level defaults are used', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    renderToString(<Names />)
    renderToString(<Names />)
    expect(warn).toHaveBeenCalledTimes(1)
    expect(String(warn.mock.calls[0]?.[0])).toMatch(/server render.*<BatonProvider/)
  })
})
