export * from './budget'
export * from './errors'
export * from './schemas'
export * from './wallet'
