import { batonProject } from '../../vitest.shared.ts'

export default batonProject('playground', {
  // The browser tests share one build of the playground (see e2e/global-setup.ts).
  globalSetup: ['./e2e/global-setup.ts'],
})
