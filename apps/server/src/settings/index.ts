export { readSettings, type Settings, SettingsSchema, testSettings } from './settings'
