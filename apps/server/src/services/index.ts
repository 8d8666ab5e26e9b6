export type * from './baton-services'
export { createServices } from './create-services'
