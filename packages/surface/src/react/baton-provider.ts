import { createElement, type ReactNode } from 'react'
import type { BatonStores } from '../stores/create-baton-stores'
import { BatonContext } from './baton-context'

export type BatonProviderProps = { stores: BatonStores; children?: ReactNode }

/**
 * Gives every Baton hook below it these stores (and their bus and swarm runner). Without a
 * provider the hooks use module-level default stores.
 *
 * @example
 * const stores = createBatonStores({ runner })
 * root.render(<BatonProvider stores={stores}><Chat /></BatonProvider>)
 */
export function BatonProvider({ stores, children }: BatonProviderProps): ReactNode {
  return createElement(BatonContext.Provider, { value: stores }, children)
}
