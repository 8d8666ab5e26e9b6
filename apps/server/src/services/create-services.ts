import { createMessageBus } from '@baton/comm'
import { createModelRegistry } from '@baton/core'
import type { ConclaveStore } from '@baton/mal'
import type { FastifyBaseLogger } from 'fastify'
import { failTasksOfLastRun } from '../a2a/tasks-left-in-progress'
import { actOnStoredDecisions, escalationsToRestore } from '../bus/stored-decisions'
import { createDatabaseConclave } from '../db/conclave-repository'
import { writableFolderProblem } from '../db/data-folder'
import { startEmbeddedVacuum } from '../db/embedded-vacuum'
import { createGroupCommit } from '../db/group-commit'
import { createDatabaseMemoryStore } from '../db/memory-repository'
import { databaseProblem, type OpenedDatabase, openDatabase } from '../db/open-database'
import { createRepositories } from '../db/repositories'
import { createRuntimeSecretsRepository } from '../db/runtime-secrets-repository'
import { createDatabaseDiscovery } from '../discovery/create-database-discovery'
import { createEndpointFetch } from '../endpoints/create-endpoint-fetch'
import { abandonClaimsOfEarlierProcesses } from '../http/idempotency'
import { cacheMemoryStore } from '../memory/cache-memory-store'
import { memoryAnnouncement, memoryTopics } from '../memory/memory-announcements'
import { createInProcessQueue } from '../queue'
import { loadRuntimeSigner } from '../receipt/load-runtime-signer'
import { cacheAgentListing } from '../registry/cache-agent-listing'
import { cacheRegistryAnswers } from '../registry/cache-registry-answers'
import { cacheSwarms } from '../registry/cache-swarms'
import { createDatabaseRegistry } from '../registry/create-database-registry'
import { queueNeverStartedRuns } from '../scale/queue-never-started-runs'
import type { Settings } from '../settings'
import { createServerMetrics, type ObservedRunEvent } from '../telemetry/server-metrics'
import { tracedQueue } from '../telemetry/traced-queue'
import { createToolCatalogue } from '../tools/create-tool-catalogue'
import { loadMcpSettings } from '../tools/load-mcp-settings'
import { loadToolsModule } from '../tools/load-tools-module'
import { createAgentHost, type ServerAgentHost } from './agent-host'
import type { BatonServices } from './baton-services'
import { createRunService } from './run-service'
import { createWorkspaceProviders } from './workspace-providers'

/** How long a shutdown lets runs in flight reach their next step boundary. */
export const shutdownDrainMs = 10_000

/** How long the bus's guard keeps an idle conversation (comm's default retention: one hour). */
const guardMemoryMs = 60 * 60 * 1000
// Topics of the invalidation channel besides the registry's wallets.
const swarmsTopic = 'swarms'

export type CreatedServices = BatonServices & {
  agentHost: ServerAgentHost
  database: Omit<OpenedDatabase, 'db'>
  /** The runs' shared state: in Redis with `REDIS_URL`, else in the database. */
  conclave: ConclaveStore
  /** Aborts `closing`: streams end, new runs are refused. */
  beginShutdown(): void
  /**
   * Stops taking runs and lets those in flight reach their next step boundary (10 s at most),
   * then stops the rest (see `RunService.drain`).
   */
  drain(): Promise<void>
}

/**
 * Builds every service once: the database (migrated), repositories, registry, bus, agent
 * host, run queue and run service. Runs left unfinished by a previous process are marked
 * `interrupted`.
 *
 * @example
 * const services = await createServices(settings, app.log)
 */
export async function createServices(
  settings: Settings,
  logger: FastifyBaseLogger,
  options: { pgliteTemplate?: Blob } = {},
): Promise<CreatedServices> {
  const opened = await openDatabase({
    dataDir: settings.dataDir,
    databaseUrl: settings.databaseUrl,
    template: options.pgliteTemplate,
    timeoutMs: settings.databaseTimeoutMs,
    prepare: settings.databasePrepare,
    onConnectionError: (error) =>
      logger.warn({ err: error }, 'a database connection broke; the pool connects again'),
  })
  const { db } = opened
  // What the start has opened so far, closed last first should a later step fail: a host that
  // goes on after a failed start keeps no pool, connection, queue worker or timer of it.
  const undo: (() => unknown)[] = [() => db.destroy()]
  try {
    // The embedded database has no autovacuum of its own (see `startEmbeddedVacuum`).
    const vacuum =
      opened.kind === 'pglite' && settings.embeddedVacuumMs > 0
        ? startEmbeddedVacuum(db, {
            everyMs: settings.embeddedVacuumMs,
            onDone: (pass) => logger.debug(pass, 'embedded database vacuumed'),
            onError: (error) =>
              logger.warn({ err: error }, 'embedded database vacuum failed; tried again later'),
          })
        : undefined
    if (vacuum) undo.push(() => vacuum.stop())
    // The agent directory, the swarms and the agents' memory are answered from memory until
    // they change (a write here, or, scaled out, another process's announcement through the
    // registry's invalidation channel). Writes of concurrent requests share a transaction.
    const writer = createGroupCommit(db)
    undo.push(() => writer.flush())
    const stored = createRepositories(db, writer)
    const listing = cacheAgentListing(stored.agents)
    // Announcements go out once the shared registry exists (scaled out only).
    let announce: (topic: string, key: string) => Promise<void> = async () => {}
    const swarms = cacheSwarms(stored.swarms, {
      onWrite: () => {
        void announce(swarmsTopic, '*')
      },
    })
    const cachedMemory = cacheMemoryStore(createDatabaseMemoryStore(db, { writer }), {
      // Awaited: the write is known to other processes before the run that made it goes on.
      onWrite: (scope, appended) => {
        const { topic, key } = memoryAnnouncement(scope, appended)
        return announce(topic, key)
      },
    })
    const repositories = { ...stored, agents: listing.agents, swarms: swarms.swarms }
    // With REDIS_URL the process is one of many (Redis, BullMQ and the rest of scale-out are
    // loaded only then): shared queue, bus, run events and invalidations.
    const scale = settings.redisUrl
      ? await (await import('../scale/create-scale-out')).createScaleOut(
          { ...settings, redisUrl: settings.redisUrl },
          logger,
        )
      : undefined
    // Its queue's worker takes jobs as soon as it is made: closed first.
    if (scale)
      undo.push(
        () => scale.close(),
        () => scale.queue.close(),
      )
    // The registry route's serialised answers, dropped with everything else cached of the agents.
    let dropAnswers = () => {}
    const ownRegistry = createDatabaseRegistry(repositories.agents, {
      onInvalidate: () => {
        listing.invalidate()
        dropAnswers()
      },
    })
    let registry: BatonServices['registry'] = ownRegistry
    if (scale) {
      const shared = await scale.shareRegistry(ownRegistry, {
        [swarmsTopic]: () => swarms.invalidate(),
        ...memoryTopics(cachedMemory),
      })
      announce = (topic, key) => shared.announce(topic, key)
      registry = shared
    }
    const memory = cachedMemory.memory
    const registryAnswers = cacheRegistryAnswers(registry)
    dropAnswers = registryAnswers.invalidate
    const models = createModelRegistry()
    const bus = scale?.bus ?? createMessageBus({ loopGuard: { maxHops: 8 } })
    undo.push(() => bus.close())
    // The bus is in memory; the database keeps every envelope and escalation it reports.
    bus.on('message', (envelope) => {
      repositories.messages.record(envelope).catch((error: unknown) => {
        logger.error({ err: error }, 'storing a message failed')
      })
    })
    const saveEscalation = (
      escalation: Parameters<typeof repositories.messages.saveEscalation>[0],
    ) => {
      repositories.messages.saveEscalation(escalation).catch((error: unknown) => {
        logger.error({ err: error }, 'storing an escalation failed')
      })
    }
    // One process's loop guard lives in memory: it learns again what it knew before a restart,
    // so a chain held then is still held, and can still be allowed (a Redis guard keeps it all).
    // A message stored but never sent (its process died in between) was not admitted, and an
    // allow whose held message was never sent is still to be acted on (below).
    const guardSince = new Date(Date.now() - guardMemoryMs)
    // Older ones' chains the guard has forgotten (its memory is `guardMemoryMs`).
    const storedEscalations = await repositories.messages.escalations(undefined, {
      since: guardSince,
    })
    if (!scale) {
      await bus.restore({
        messages: await repositories.messages.since(guardSince, 10_000, { sentOnly: true }),
        escalations: await escalationsToRestore(
          storedEscalations,
          (id) => repositories.messages.find(id),
          { since: guardSince },
        ),
      })
    }
    bus.on('escalation', saveEscalation)
    bus.on('escalation-resolved', saveEscalation)

    const workspaces = createWorkspaceProviders(settings)
    undo.push(() => workspaces.close())
    const tools = createToolCatalogue({
      ...(settings.mcpConfig ? { mcp: await loadMcpSettings(settings.mcpConfig) } : {}),
      ...(settings.toolsModule ? { moduleTools: await loadToolsModule(settings.toolsModule) } : {}),
      workspaceKinds: Object.keys(workspaces.providers),
    })
    undo.push(() => tools.close())
    const agentHost = createAgentHost({
      tools,
      workspaceProviders: workspaces.providers,
      agents: repositories.agents,
      registry,
      ledger: repositories.ledger,
      memory,
      models,
      bus,
      logger,
      maxDelegationDepth: settings.maxDelegationDepth,
      endpointFetch: createEndpointFetch({ allowPrivate: settings.allowPrivateEndpoints }),
    })
    // Among many processes the conclave is Redis's, one keyspace per run for all of them, with
    // compare-and-set in one script; a single process keeps it in its database.
    const redisConclave = settings.redisUrl
      ? await (await import('../conclave/open-redis-conclave')).openRedisConclave({
          url: settings.redisUrl,
          logger,
          // Redis names may not hold spaces; the worker's name is an operator's to choose.
          name: `baton-conclave:${settings.workerName.replace(/\s/g, '_')}`,
        })
      : undefined
    if (redisConclave) undo.push(() => redisConclave.close())
    const conclave = redisConclave?.conclave ?? createDatabaseConclave(db, {}, writer)
    const runtime = await loadRuntimeSigner({
      key: settings.runtimeKey,
      dataDir: settings.dataDir,
      logger,
      // On PostgreSQL nothing is kept on local disk: the development key lives in the database.
      ...(settings.databaseUrl ? { secrets: createRuntimeSecretsRepository(db) } : {}),
    })
    // Trace context travels with each job; each attempt records its trace on the run.
    const queue = tracedQueue(
      scale?.queue ?? createInProcessQueue({ concurrency: settings.workerConcurrency }),
      {
        name: 'baton-runs',
        system: scale ? 'bullmq' : 'baton.in-process',
        recordTrace: (runId, trace) => repositories.runs.recordTrace(runId, trace),
        onError: (error) => logger.warn({ err: error }, 'recording a run trace failed'),
      },
    )
    if (!scale) undo.push(() => queue.close())
    const metrics = createServerMetrics({
      workerName: settings.workerName,
      queueDepth: () => queue.depth?.() ?? queue.size(),
      activeRuns: () => runs.active().length,
    })
    undo.push(() => metrics.close())
    bus.on('escalation', () => metrics.escalation('hold'))
    bus.on('escalation-resolved', (escalation) =>
      metrics.escalation(escalation.status === 'allowed' ? 'allow' : 'stop'),
    )
    const runs = createRunService({
      repositories,
      registry,
      host: agentHost,
      models,
      discovery: createDatabaseDiscovery(db),
      conclave,
      receiptSigner: runtime.signer,
      requireReceipts: settings.requireReceipts,
      maxRunSteps: settings.runMaxSteps,
      maxRunWallMs: settings.runMaxWallMs,
      memory,
      queue,
      logger,
      workerName: settings.workerName,
      onRunEvent: (kind, event) => metrics.runEvent(kind, event as ObservedRunEvent),
      ...(scale ? { notifier: scale.notifier, handOverOnShutdown: true } : {}),
    })
    undo.push(() => runs.drain(shutdownDrainMs))
    // Among many processes, runs left running are another's (or taken over when its lease ends).
    // Alone, runs left unfinished are this process's: those that ran wait for a resume, those
    // that never started are queued again.
    const recovered = scale ? undefined : await runs.recoverInterrupted()
    if (recovered?.interrupted.length)
      logger.warn({ runs: recovered.interrupted }, 'runs interrupted by the last stop')
    if (recovered?.queued.length)
      logger.info({ runs: recovered.queued }, 'runs queued before the last stop, queued again')
    // Alone, an Idempotency-Key claimed and never answered was a dead process's: its retry
    // recovers what that request made now, not a minute after the claim.
    const abandoned = scale ? 0 : await abandonClaimsOfEarlierProcesses(repositories.idempotency)
    if (abandoned > 0) {
      logger.warn(
        { keys: abandoned },
        'Idempotency-Keys left unanswered by the last stop, retryable now',
      )
    }
    // Among many processes, a run stored by one that died before queueing it has no job: every
    // process queues such runs again (at start and every lease), past a lease and the Redis bound.
    const neverStarted = scale
      ? await queueNeverStartedRuns({
          runs,
          everyMs: settings.leaseMs,
          graceMs: settings.leaseMs + settings.redisTimeoutMs,
          logger,
        })
      : undefined
    if (neverStarted) undo.push(() => neverStarted.stop())
    // Alone, A2A tasks left in progress were this process's too, and no one will end them now
    // (among many, each process fails those of a process whose lease lapsed: see the A2A plugin).
    const failedTasks = scale ? [] : await failTasksOfLastRun(db)
    if (failedTasks.length > 0)
      logger.warn({ tasks: failedTasks }, 'A2A tasks cut off by the last stop, failed')
    // A person's decision on a held chain is stored before the guard acts on it: one whose
    // process stopped in between is acted on now, once the agents it may reach are hosted.
    await actOnStoredDecisions(bus, storedEscalations, { since: guardSince, logger })

    const closing = new AbortController()
    let closed = false
    return {
      settings,
      db,
      writer,
      database: { kind: opened.kind, location: opened.location },
      repositories,
      registry,
      registryAnswers,
      agentPages: listing.page,
      bus,
      agentHost,
      conclave,
      runs,
      runtime,
      memory,
      models,
      tools,
      metrics,
      closing: closing.signal,
      beginShutdown: () => closing.abort(),
      async readiness() {
        const timeoutMs = Math.min(2_000, settings.databaseTimeoutMs)
        const inFolder = opened.kind === 'pglite' && opened.location !== 'memory://'
        const [database, redis, dataFolder] = await Promise.all([
          databaseProblem(db, timeoutMs),
          scale?.redisProblem(timeoutMs),
          inFolder ? writableFolderProblem(opened.location, timeoutMs) : undefined,
        ])
        return {
          ...(database ? { database } : {}),
          ...(redis ? { redis } : {}),
          ...(dataFolder ? { dataFolder } : {}),
        }
      },
      async drain() {
        closing.abort()
        await neverStarted?.stop()
        await runs.drain(shutdownDrainMs)
      },
      async close() {
        if (closed) return
        closed = true
        closing.abort()
        await neverStarted?.stop()
        await runs.drain(shutdownDrainMs)
        await vacuum?.stop()
        await queue.close()
        metrics.close()
        // Runs still queued that never started stay queued (the next start queues them again, and
        // among many processes they are the others'); a run that had run waits for a resume.
        if (!scale) await repositories.runs.interruptUnfinished().catch(() => [])
        await bus.close()
        await tools.close()
        await workspaces.close()
        await redisConclave?.close()
        await scale?.close()
        // Writes asked for by then (the bus's records, written behind) are stored before the end.
        await writer.flush()
        await db.destroy()
      },
    }
  } catch (error) {
    // Each is closed even if one before it fails to; the start's own error is the one thrown.
    for (const close of undo.reverse()) {
      await Promise.resolve()
        .then(close)
        .catch(() => {})
    }
    throw error
  }
}
