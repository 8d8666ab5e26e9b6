import { batonProject } from '../vitest.shared'

export default batonProject('examples', { testTimeout: 120_000 })
