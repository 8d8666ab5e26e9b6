export { type InsertionOrdered, OldestFirst } from './oldest-first'
