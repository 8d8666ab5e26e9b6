import { describeConclaveStore } from '../__fixtures__/conclave-store-contract'
import { createMemoryConclave } from './create-memory-conclave'

describeConclaveStore('memory', async () => createMemoryConclave({ maxKeys: 3, maxValueBytes: 64 }))
