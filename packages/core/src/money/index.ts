export { fromUsdUnits, MAX_USD, roundUsd, sumUsd, toUsdUnits, USD_DECIMALS } from './usd-units'
