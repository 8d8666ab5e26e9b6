import { batonProject } from '../../vitest.shared.mjs'

export default batonProject('playground')
