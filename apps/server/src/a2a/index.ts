export { a2aPlugin } from './a2a-plugin'
