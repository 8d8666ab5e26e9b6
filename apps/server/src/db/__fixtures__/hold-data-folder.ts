// A process that takes a data folder's lock, says whether it got it, holds it for a while and
// gives it up: `node <this> <folder> <holdMs>` (run from source by the tests).
import { DataFolderInUseError, lockDataFolder } from '../data-folder-lock'

const [folder, holdMs = '1500'] = process.argv.slice(2)
try {
  const lock = await lockDataFolder(folder!, 'a test process')
  process.stdout.write('held\n')
  await new Promise((resolve) => setTimeout(resolve, Number(holdMs)))
  await lock.release()
} catch (error) {
  if (!(error instanceof DataFolderInUseError)) throw error
  process.stdout.write(`refused: ${error.message}\n`)
}
