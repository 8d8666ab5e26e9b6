export {
  Credential,
  type ProviderServer,
  type RecordedRequest,
  type ScriptedTurn,
  startProviderServer,
} from './start-provider-server'
export { DEFAULT_USAGE, type ReportedUsage, type Turn } from './turns'
export type { Api } from './wire'
