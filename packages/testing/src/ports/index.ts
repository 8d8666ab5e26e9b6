export { freePort } from './free-port'
