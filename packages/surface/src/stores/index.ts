export {
  type BatonStores,
  type CreateBatonStoresOptions,
  createBatonStores,
} from './create-baton-stores'
