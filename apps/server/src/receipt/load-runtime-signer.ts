import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { createReceiptSigner, generateReceiptKey, type ReceiptSigner } from '@baton/core'
import type { FastifyBaseLogger } from 'fastify'
import type { RuntimeSecretsRepository } from '../db/runtime-secrets-repository'

/** The runtime key that signs run receipts, and where it came from. */
export type RuntimeSigner = {
  signer: ReceiptSigner
  /** The address verifiers trust (`verifyRunReceipt(receipt, { runtime })`). */
  address: string
  source: 'BATON_RUNTIME_KEY' | 'data-dir' | 'database' | 'memory'
}

export const RUNTIME_KEY_FILE = 'runtime-key'

/**
 * The runtime's signing key: `BATON_RUNTIME_KEY` when set; otherwise a development key made on
 * first start and kept, so receipts still verify after a restart: in the database when one is
 * given (`secrets`: a server on PostgreSQL writes nothing to local disk), else in the data
 * folder (readable by its owner only); with an in-memory database, a key for this process
 * only. Each fallback is said at start.
 *
 * @example
 * const runtime = await loadRuntimeSigner({ key: settings.runtimeKey, dataDir: settings.dataDir, logger })
 */
export async function loadRuntimeSigner(options: {
  key: string | undefined
  dataDir: string
  logger: FastifyBaseLogger
  /** Keeps the development key in the database (PostgreSQL) instead of the data folder. */
  secrets?: RuntimeSecretsRepository
}): Promise<RuntimeSigner> {
  const { key, dataDir, logger, secrets } = options
  if (key) {
    const signer = createReceiptSigner(key)
    logger.info({ runtime: signer.address }, 'run receipts are signed by BATON_RUNTIME_KEY')
    return { signer, address: signer.address, source: 'BATON_RUNTIME_KEY' }
  }
  if (secrets) {
    const signer = createReceiptSigner(await secrets.claim(RUNTIME_KEY_FILE, generateReceiptKey))
    logger.warn(
      { runtime: signer.address },
      'no BATON_RUNTIME_KEY: run receipts are signed by the development key kept in the database',
    )
    return { signer, address: signer.address, source: 'database' }
  }
  if (dataDir === 'memory://') {
    const signer = createReceiptSigner(generateReceiptKey())
    logger.warn(
      { runtime: signer.address },
      'no BATON_RUNTIME_KEY: run receipts are signed by a key for this process only',
    )
    return { signer, address: signer.address, source: 'memory' }
  }
  const file = path.join(dataDir, RUNTIME_KEY_FILE)
  let stored = await readFile(file, 'utf8').then(
    (text) => text.trim(),
    (error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return undefined
      throw error
    },
  )
  if (stored === undefined) {
    stored = generateReceiptKey()
    await mkdir(dataDir, { recursive: true })
    // `wx`: two processes starting on one folder keep the first key, not two.
    await writeFile(file, `${stored}\n`, { mode: 0o600, flag: 'wx' }).catch(
      async (error: NodeJS.ErrnoException) => {
        if (error.code !== 'EEXIST') throw error
        stored = (await readFile(file, 'utf8')).trim()
      },
    )
    await chmod(file, 0o600).catch(() => undefined)
  }
  const signer = createReceiptSigner(stored)
  logger.warn(
    { runtime: signer.address, file },
    'no BATON_RUNTIME_KEY: run receipts are signed by the development key kept in the data folder',
  )
  return { signer, address: signer.address, source: 'data-dir' }
}
