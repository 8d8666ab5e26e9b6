export { A2AHttpError, A2AResponseError, A2ARpcError, A2ATimeoutError } from './a2a-errors'
export {
  type A2AConnection,
  type CreateA2AClientOptions,
  createA2AClient,
  isCardUrl,
} from './create-a2a-client'
export { type A2AReply, type SendA2AMessageOptions, sendA2AMessage } from './send-a2a-message'
