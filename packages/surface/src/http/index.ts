export {
  type FetchListOptions,
  fetchList,
  type ListEndpoint,
  resolveEndpoint,
  stripUserInfo,
} from './fetch-list'
export { listInBody, requireListInBody } from './list-in-body'
