export { appendAsWriter, type ConclaveStoreLike } from './conclave-store'
export { describeConclaveStore } from './describe-conclave-store'
