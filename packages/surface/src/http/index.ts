export {
  type FetchListOptions,
  fetchList,
  type ListEndpoint,
  resolveEndpoint,
  stripUserInfo,
} from './fetch-list'
