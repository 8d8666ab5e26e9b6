export * from './react'
export * from './vanilla'
