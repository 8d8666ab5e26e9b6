import { batonProject } from '../../vitest.shared'

export default batonProject('subagents')
