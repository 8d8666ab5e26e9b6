export {
  createWebSocketRail,
  type WebSocketRail,
  type WebSocketRailOptions,
  type WebSocketRailStats,
} from './create-websocket-rail'
