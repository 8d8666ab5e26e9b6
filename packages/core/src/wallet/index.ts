export { hasHighS, toHighS } from './has-high-s'
export { MalformedWalletError } from './malformed-wallet-error'
export { isWallet, parseWallet } from './parse-wallet'
