import { AgentCard } from '@a2a-js/sdk'

/**
 * The echo agent's card at `url`, speaking JSON-RPC in the given protocol versions.
 *
 * @example
 * echoCard({ name: 'SDK echo agent', url, versions: ['1.0', '0.3'], streaming: true })
 */
export function echoCard({
  name,
  url,
  versions,
  streaming,
}: {
  name: string
  url: string
  versions: string[]
  streaming: boolean
}): AgentCard {
  return AgentCard.fromJSON({
    name,
    description: 'Echoes what it is sent',
    version: '1.0.0',
    supportedInterfaces: versions.map((protocolVersion) => ({
      url,
      protocolBinding: 'JSONRPC',
      protocolVersion,
    })),
    capabilities: { streaming },
    defaultInputModes: ['text/plain'],
    defaultOutputModes: ['text/plain'],
    skills: [{ id: 'echo', name: 'Echo', description: 'Echoes', tags: ['echo'] }],
  })
}
