export { withGrantedTools } from './with-granted-tools'
