import { batonProject } from '../../vitest.shared.ts'

export default batonProject('server', {
  // One throw-away PostgreSQL cluster for the whole run (see src/__fixtures__/global-setup.ts).
  globalSetup: ['./src/__fixtures__/global-setup.ts'],
})
