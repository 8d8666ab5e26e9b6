export { readSse, type SseEvent } from './read-sse'
