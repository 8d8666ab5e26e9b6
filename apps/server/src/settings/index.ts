export {
  MEMORY_DATA_DIR,
  readSettings,
  type Settings,
  SettingsSchema,
  testRegistryId,
  testSettings,
} from './settings'
