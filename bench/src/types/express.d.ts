// The little of Express the A2A reference server uses. Express 5 ships no types and
// @types/express is not a dependency of the bench; the SDK's own handler types stay its own.
declare module 'express' {
  import type { IncomingMessage, Server, ServerResponse } from 'node:http'

  export type Request = IncomingMessage
  export type Response = ServerResponse
  export type RequestHandler = (request: Request, response: Response, next: () => void) => void

  export interface Application {
    use(path: string, handler: RequestHandler): Application
    listen(port: number, host: string): Server
  }

  export default function express(): Application
}
