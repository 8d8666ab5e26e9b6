export * from './react'
export * from './server'
export * from './vanilla'
