import { type RawBuilder, sql } from 'kysely'
import type { WriteChannel } from './group-commit'
import { jsonRows } from './json-rows'
import { type RunRow, type StoredRun, toRun } from './stored-run'

/** A run to take for the process `executedBy`, as a job of it starts there. */
export type RunClaim = { runId: string; executedBy: string }

/** The run as it was before its claim, and the attempt the claim made (0: not claimed). */
export type ClaimedRun = { run: StoredRun; attempt: number } | undefined

type ClaimRow = { run: RunRow; claimed_attempt: number | null; id: string }

/**
 * The statement that claims `claims` (of distinct runs) at once: each run's row is read as it
 * was and locked (`for update`: a takeover's claim or a fenced write of it waits), then taken
 * (`running`, the process's name, one more attempt) only when it was queued or running. One
 * row per run found: the row before (as JSON) and the attempt made, null when not claimed.
 * Undefined when a run is claimed twice here (each then goes alone, one after the other).
 *
 * @example
 * const statement = runClaimsStatement([{ runId, executedBy: 'worker-1' }])
 * const { rows } = await statement!.execute(db)
 */
export function runClaimsStatement(claims: RunClaim[]): RawBuilder<ClaimRow> | undefined {
  if (new Set(claims.map((claim) => claim.runId)).size < claims.length) return undefined
  const rows = claims.map(({ runId, executedBy }) => ({ id: runId, executed_by: executedBy }))
  // The final select has no parenthesis: with other answering channels, the group commit
  // puts it beside theirs (see `WriteChannel.answers`).
  // Runs found by their key (an index scan): see `runWritesStatement`.
  return sql<ClaimRow>`with claim_rows as materialized (
      select * from ${jsonRows(rows, 'v', 'id text, executed_by text')}
    ),
    claim_before as materialized (
      select runs.*, v.executed_by as claim_by from runs
      join claim_rows v on runs.id = v.id
      where runs.id = any (array(select id from claim_rows))
      for update of runs
    ),
    claim_taken as (
      update runs set status = 'running', executed_by = claim_before.claim_by,
        attempt = runs.attempt + 1, updated_at = ${new Date()}
      from claim_before
      where runs.id = claim_before.id and claim_before.status in ('queued', 'running')
      returning runs.id, runs.attempt
    ),
    claim_answer as materialized (
      select claim_before.id, to_jsonb(claim_before) as run, claim_taken.attempt as claimed_attempt
      from claim_before left join claim_taken on claim_taken.id = claim_before.id
    )
    select * from claim_answer`
}

function answersOf(rows: unknown[], claims: RunClaim[]): ClaimedRun[] {
  const byId = new Map((rows as ClaimRow[]).map((row) => [row.id, row]))
  return claims.map(({ runId }) => {
    const row = byId.get(runId)
    if (!row) return undefined
    return { run: toRun(row.run), attempt: Number(row.claimed_attempt ?? 0) }
  })
}

/**
 * The runs' claims on the process's group commit: the jobs that start while the writer's
 * previous turn is at the database claim their runs in its next turn, one clause of its one
 * statement (one commit with the other runs' writes). Each executor gets its run as it was
 * before the claim once the claim has committed, as `claimToExecute` answered on its own.
 */
export const runClaims: WriteChannel<RunClaim, ClaimedRun> = {
  name: 'run claims',
  statement: (_db, claims) => runClaimsStatement(claims),
  answers: answersOf,
  async store(executor, claims) {
    const together = runClaimsStatement(claims)
    if (together) return answersOf((await together.execute(executor)).rows, claims)
    const answers: ClaimedRun[] = []
    for (const claim of claims) {
      const { rows } = await runClaimsStatement([claim])!.execute(executor)
      answers.push(...answersOf(rows, [claim]))
    }
    return answers
  },
}
