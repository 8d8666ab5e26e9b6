import { a2aCase } from './a2a/a2a-case'
import { a2aPostgresCase } from './a2a/a2a-postgres-case'
import { agentsListCase } from './agents-list/agents-list-case'
import { browserWorkspacesCase } from './browser-workspaces/browser-workspaces-case'
import { budgetTreeCase } from './budget-tree/budget-tree-case'
import { busCase } from './bus/bus-case'
import { busRailCase } from './bus-rail/bus-rail-case'
import { chainCase } from './chain/chain-case'
import { chainTelemetryCase } from './chain-telemetry/chain-telemetry-case'
import { fanoutCase } from './fanout/fanout-case'
import { httpAgentCase } from './http-agent/http-agent-case'
import { malFanoutCase } from './mal-fanout/mal-fanout-case'
import { mcpDelegateCase } from './mcp-delegate/mcp-delegate-case'
import { mcpToolCase } from './mcp-tool/mcp-tool-case'
import { nestedCase } from './nested/nested-case'
import { registryCase } from './registry/registry-case'
import { runAgentCase } from './run-agent/run-agent-case'
import { runsCase } from './runs/runs-case'
import { scaleOutCase } from './scale-out/scale-out-case'
import { serverMemoryCase } from './server-memory/server-memory-case'
import { streamFirstDeltaCase, streamSseCase } from './stream/stream-case'
import type { BenchCase } from './types'
import { validatePlanCase } from './validate-plan/validate-plan-case'

export type { BenchCase, Figure, Size, Subject, Subjects } from './types'
export { SUBJECTS } from './types'

/** Every case, in the order of the table. */
export const CASES: readonly BenchCase[] = [
  chainCase,
  chainTelemetryCase,
  runAgentCase,
  nestedCase,
  fanoutCase,
  malFanoutCase,
  busCase,
  busRailCase,
  budgetTreeCase,
  registryCase,
  validatePlanCase,
  httpAgentCase,
  agentsListCase,
  a2aCase,
  a2aPostgresCase,
  runsCase,
  scaleOutCase,
  serverMemoryCase,
  mcpToolCase,
  browserWorkspacesCase,
  streamFirstDeltaCase,
  streamSseCase,
  mcpDelegateCase,
]
