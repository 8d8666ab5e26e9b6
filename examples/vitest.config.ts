import { batonProject } from '../vitest.shared.mjs'

export default batonProject('examples', { testTimeout: 120_000 })
