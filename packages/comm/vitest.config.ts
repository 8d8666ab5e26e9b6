import { batonProject } from '../../vitest.shared.ts'

// The files share their worker's modules instead of importing the sources again per file
// (import time was a third of this project's run); each file restores what it changes.
export default batonProject('comm', { isolate: false })
