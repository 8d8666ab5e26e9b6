export type * from './baton-services'
export { createServices, shutdownDrainMs } from './create-services'
