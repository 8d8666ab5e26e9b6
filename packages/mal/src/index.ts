export * from './swarm'
