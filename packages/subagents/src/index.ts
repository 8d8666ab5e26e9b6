export * from './adapters'
export * from './runner'
export * from './supervisor'
export * from './workspace'
