import { batonProject } from '../../vitest.shared.ts'

export default batonProject('core')
