/** The example plans of docs/, saved at the first start (their wallets are the demo agents'). */
export const demoPlans: { id: string; name: string; source: string }[] = [
  {
    id: 'risk-review',
    name: 'Risk review',
    source: `name: risk-review
requireReceipt: true
inputs: { request: string }
budget: { maxWallMs: 300000, cost: 0.50 }
steps:
  - op: delegate
    saveAs: analysis
    agentWallet: "0x1111111111111111111111111111111111111111"
    prompt: "Analyze this request and return risk notes: {{inputs.request}}"
    budget: { maxWallMs: 120000 }
  - op: stop
    output: "{{analysis}}"
`,
  },
  {
    id: 'review-and-test',
    name: 'Analyse, review and test a change',
    source: `name: review-and-test
inputs: { change: string }
budget: { calls: 20, cost: 0.50 }
steps:
  - op: delegate
    saveAs: analysis
    agentWallet: "0x1111111111111111111111111111111111111111"
    prompt: "What does this change touch? {{inputs.change}}"
  - op: fanout
    saveAs: checks
    branches:
      - id: review
        steps:
          - op: delegate
            saveAs: review
            agentWallet: "0x2222222222222222222222222222222222222222"
            prompt: "Review: {{analysis}}"
      - id: tests
        steps:
          - op: delegate
            saveAs: tests
            agentWallet: "0x3333333333333333333333333333333333333333"
            prompt: "Which tests cover: {{analysis}}"
  - op: stop
    output: { analysis: "{{analysis}}", review: "{{checks.review}}", tests: "{{checks.tests}}" }
`,
  },
]
