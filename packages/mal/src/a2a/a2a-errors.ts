import { BatonError, redactUrl } from '@baton/core'

/** The agent's endpoint answered with an HTTP status other than 200. */
export class A2AHttpError extends BatonError {
  override name = 'A2AHttpError'
  readonly status: number
  constructor(options: { endpoint: string; status: number }) {
    const endpoint = redactUrl(options.endpoint)
    super('A2A_HTTP_ERROR', `A2A endpoint ${endpoint} answered HTTP ${options.status}.`, {
      details: { endpoint, status: options.status },
    })
    this.status = options.status
  }
}

/** The agent answered with a JSON-RPC error object. */
export class A2ARpcError extends BatonError {
  override name = 'A2ARpcError'
  readonly rpcCode: number
  constructor(options: { endpoint: string; rpcCode: number; rpcMessage: string; data?: unknown }) {
    const endpoint = redactUrl(options.endpoint)
    super(
      'A2A_RPC_ERROR',
      `A2A endpoint ${endpoint} returned JSON-RPC error ${options.rpcCode}: ${options.rpcMessage}`,
      { details: { endpoint, rpcCode: options.rpcCode, data: options.data } },
    )
    this.rpcCode = options.rpcCode
  }
}

/** The agent did not answer in time. */
export class A2ATimeoutError extends BatonError {
  override name = 'A2ATimeoutError'
  constructor(options: { endpoint: string; timeoutMs: number }) {
    const endpoint = redactUrl(options.endpoint)
    super(
      'A2A_TIMEOUT',
      `A2A endpoint ${endpoint} did not answer within ${options.timeoutMs} ms.`,
      {
        details: { endpoint, timeoutMs: options.timeoutMs },
      },
    )
  }
}

/** The answer was not a JSON-RPC response carrying a Message or Task, or the task did not complete. */
export class A2AResponseError extends BatonError {
  override name = 'A2AResponseError'
  constructor(options: { endpoint: string; reason: string; cause?: unknown }) {
    const endpoint = redactUrl(options.endpoint)
    super('A2A_BAD_RESPONSE', `A2A endpoint ${endpoint} ${options.reason}.`, {
      details: { endpoint },
      cause: options.cause,
    })
  }
}
