// Everything but the React bindings, for Node code and tests that must not load React.
export * from './advanced-agent-store'
export * from './agent-store'
export * from './delegation'
export * from './mentions'
export * from './stores'
export * from './swarm-agent'
export * from './swarm-runner'
