import { analystWallet } from './agents'

/** The seed example of the MAL reference, as YAML text: one delegate, then stop. */
export const seedPlan = `name: risk-review
inputs: { request: string }
budget: { maxWallMs: 300000, cost: 0.50 }
steps:
  - op: delegate
    saveAs: analysis
    agentWallet: "${analystWallet}"
    prompt: "Analyze this request and return risk notes: {{inputs.request}}"
    budget: { maxWallMs: 120000 }
  - op: stop
    output: "{{analysis}}"
`
