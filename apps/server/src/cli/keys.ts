import { pathToFileURL } from 'node:url'
import { BatonError } from '@baton/core'
import { SCOPES, type Scope } from '../auth/principal'
import { createApiKeysRepository } from '../db/api-keys-repository'
import { DataFolderInUseError } from '../db/data-folder-lock'
import { openDatabase } from '../db/open-database'
import { KeyName, KeyScopes } from '../routes/keys'
import { MEMORY_DATA_DIR, readSettings } from '../settings'

const usage = `Usage:
  keys create --name <name> --scopes <${SCOPES.join(',')}>   make a key (printed once)
  keys list                                              the keys (never the keys themselves)
  keys revoke <id or name>                               revoke a key
Reads BATON_DATA_DIR / DATABASE_URL like the server.`

/** The value after `--flag` (or `--flag=value`). */
function option(args: string[], flag: string): string | undefined {
  const index = args.findIndex((arg) => arg === flag || arg.startsWith(`${flag}=`))
  if (index < 0) return undefined
  const arg = args[index]!
  return arg.includes('=') ? arg.slice(flag.length + 1) : args[index + 1]
}

/**
 * `baton-server keys ...`: makes, lists and revokes API keys in the server's database (the
 * same one the server reads: BATON_DATA_DIR or DATABASE_URL). Prints a made key once.
 *
 * @example
 * await runKeysCommand(['create', '--name', 'ci', '--scopes', 'read,run'], process.env)
 */
export async function runKeysCommand(
  args: string[],
  environment: Record<string, string | undefined>,
  print: (line: string) => void = console.log,
): Promise<number> {
  const [command, ...rest] = args
  if (!command || !['create', 'list', 'revoke'].includes(command)) {
    print(usage)
    return 2
  }
  const settings = readSettings(environment)
  if (settings.dataDir === MEMORY_DATA_DIR && !settings.databaseUrl) {
    // A key made in this process's own memory would be gone when it ends, and no server has it.
    print(
      `BATON_DATA_DIR=${MEMORY_DATA_DIR} is a server's own memory, which this command cannot reach: make the key with POST /api/v1/keys on that server`,
    )
    return 2
  }
  const opened = await openDatabase({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    holder: 'the keys command',
  }).catch((error: unknown) => {
    if (error instanceof DataFolderInUseError) return error
    throw error
  })
  if (opened instanceof DataFolderInUseError) {
    print(opened.message)
    print(
      'While a server runs on it, make and revoke keys over HTTP: POST /api/v1/keys, DELETE /api/v1/keys/:id (admin).',
    )
    return 1
  }
  const { db } = opened
  try {
    const keys = createApiKeysRepository(db)
    if (command === 'create') {
      const name = KeyName.safeParse(option(rest, '--name'))
      const scopes = KeyScopes.safeParse(
        (option(rest, '--scopes') ?? '').split(',').filter(Boolean),
      )
      if (!name.success || !scopes.success) {
        print(
          `--name ${name.success ? 'is fine' : name.error.issues[0]?.message}; --scopes ${scopes.success ? 'are fine' : `must be some of ${SCOPES.join(', ')}`}`,
        )
        return 2
      }
      const { apiKey, key } = await keys.create({ name: name.data, scopes: scopes.data as Scope[] })
      print(`made key "${apiKey.name}" (${apiKey.id}) with scopes ${apiKey.scopes.join(',')}:`)
      print(key)
      print('It is shown this once; the server keeps only its sha256.')
      return 0
    }
    if (command === 'list') {
      for (const each of await keys.list()) {
        const state = each.revokedAt ? `revoked ${each.revokedAt}` : 'live'
        print(`${each.id}  ${each.name}  ${each.scopes.join(',')}  ${state}`)
      }
      return 0
    }
    const target = rest[0]
    if (!target) {
      print(usage)
      return 2
    }
    if (!(await keys.revoke(target))) {
      print(`no live key has the id or name "${target}"`)
      return 1
    }
    print(`revoked ${target}`)
    return 0
  } finally {
    await db.destroy()
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  runKeysCommand(process.argv.slice(2), process.env).then(
    (code) => process.exit(code),
    (error: unknown) => {
      console.error(BatonError.isInstance(error) ? error.message : error)
      process.exit(1)
    },
  )
}
