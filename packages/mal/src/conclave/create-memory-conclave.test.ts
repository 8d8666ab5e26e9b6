import { describeConclaveStore } from '@baton/testing/conclave'
import { createMemoryConclave } from './create-memory-conclave'

describeConclaveStore('memory', async () => createMemoryConclave({ maxKeys: 3, maxValueBytes: 64 }))
