// A host of a shared browser that shuts down by itself at SIGINT: its own work first (300 ms),
// then it closes the browser, says so, and exits 0. Argument: Chromium's path.
import { createSharedBrowser } from '../shared-browser'

const shared = createSharedBrowser({
  executablePath: process.argv[2]!,
  args: [],
  launchTimeoutMs: 30_000,
})
const browser = await shared.get()
const page = await (await browser.newContext()).newPage()
await page.goto('data:text/html,ready')
process.once('SIGINT', async () => {
  await new Promise((resolve) => setTimeout(resolve, 300))
  console.log(`connected at shutdown: ${browser.isConnected()}`)
  await shared.close()
  console.log('closed cleanly')
  process.exit(0)
})
console.log(`ready ${shared.pid}`)
