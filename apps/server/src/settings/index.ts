export {
  readSettings,
  type Settings,
  SettingsSchema,
  testRegistryId,
  testSettings,
} from './settings'
