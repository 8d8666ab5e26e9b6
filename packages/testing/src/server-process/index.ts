export {
  runServerToExit,
  type ServerEntryOptions,
  type ServerProcess,
  startServerProcess,
} from './start-server-process'
