import { batonProject } from '../vitest.shared.ts'

export default batonProject('examples', { testTimeout: 120_000 })
