export { hasMethods } from './has-methods'
