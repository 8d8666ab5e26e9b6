export { MalformedWalletError } from './malformed-wallet-error'
export { isWallet, parseWallet } from './parse-wallet'
