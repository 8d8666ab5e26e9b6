// The browser build's stand-in for Node-only packages (`ioredis`, `ws`) that @baton/comm
// loads lazily for its Redis and WebSocket rails. The playground uses neither: the server's
// bus is reached over HTTP. Importing this module is harmless; using it says why it fails.
const unavailable = () => {
  throw new Error('Redis and WebSocket rails run on the server, not in the playground.')
}
export default unavailable
export const Redis = unavailable
export const WebSocket = unavailable
export const WebSocketServer = unavailable
