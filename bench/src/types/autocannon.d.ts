// The part of autocannon's programmatic API the load tests use (autocannon ships no types).
declare module 'autocannon' {
  export type Options = {
    url: string
    connections?: number
    duration?: number
    method?: string
    headers?: Record<string, string>
    body?: string
    /** Each request may be changed before it is sent (its body, say). */
    requests?: { setupRequest?: (request: RequestParams) => RequestParams }[]
  }

  export type RequestParams = {
    method?: string
    path?: string
    body?: string
    headers?: Record<string, string>
  }

  export type Histogram = { average: number; mean: number; p50: number; p99: number; total: number }

  export type Result = {
    requests: Histogram
    latency: Histogram
    errors: number
    timeouts: number
    non2xx: number
    '2xx': number
    duration: number
  }

  export default function autocannon(options: Options): Promise<Result>
}
