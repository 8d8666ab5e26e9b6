import { countAbortControllers } from '@baton/testing/abort-controllers'
import { describe, expect, it } from 'vitest'
import { BatonError, ValidationError } from '../errors/baton-error'
import { BudgetCancelledError, BudgetExceededError } from './budget-errors'
import { type Budget, type ChargeEvent, createBudget, followsSignal } from './create-budget'

const analyst = '0x52908400098527886E0F7030069857D2E4169EE7'
const reviewer = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359'

function thrown(action: () => unknown): BatonError {
  try {
    action()
  } catch (error) {
    if (BatonError.isInstance(error)) return error
    throw error
  }
  throw new Error('expected the action to throw')
}

function aborted(budget: Budget): Promise<unknown> {
  if (budget.signal.aborted) return Promise.resolve(budget.signal.reason)
  return new Promise((resolve) =>
    budget.signal.addEventListener('abort', () => resolve(budget.signal.reason), { once: true }),
  )
}

describe('createBudget', () => {
  it('accepts the cost and seconds spellings', () => {
    expect(createBudget({ calls: 3, cost: 0.5, seconds: 2 }).limits).toEqual({
      calls: 3,
      costUsd: 0.5,
      maxWallMs: 2000,
    })
    expect(createBudget({ costUsd: 0.5, maxWallMs: 1500 }).limits).toEqual({
      costUsd: 0.5,
      maxWallMs: 1500,
    })
    expect(createBudget().limits).toEqual({})
  })

  it('refuses limits that contradict or are not limits, naming the field', () => {
    const paths = (limits: object) =>
      (thrown(() => createBudget(limits)) as ValidationError).issues.map((issue) => issue.path)
    expect(paths({ cost: 1, costUsd: 2 })).toEqual(['cost'])
    expect(paths({ seconds: 1, maxWallMs: 2000 })).toEqual(['seconds'])
    expect(paths({ calls: -1 })).toEqual(['calls'])
    expect(paths({ calls: 1.5 })).toEqual(['calls'])
    expect(paths({ tokens: Number.POSITIVE_INFINITY })).toEqual(['tokens'])
    expect(thrown(() => createBudget({ dollars: 3 } as object))).toBeInstanceOf(ValidationError)
  })

  it('charges the budget and every ancestor at once', () => {
    const root = createBudget({ calls: 10, cost: 1, tokens: 1000 })
    const grandchild = root.child({ calls: 5 }).child()
    grandchild.charge({ calls: 1, inputTokens: 120, outputTokens: 30, costUsd: 0.25 })
    for (const budget of [root, grandchild.parent!, grandchild]) {
      expect(budget.spent()).toMatchObject({ calls: 1, tokens: 150, costUsd: 0.25 })
    }
    expect(root.remaining()).toMatchObject({ calls: 9, tokens: 850, costUsd: 0.75 })
    expect(grandchild.remaining()).toMatchObject({ calls: 4, tokens: 850, costUsd: 0.75 })
  })

  it('keeps exact books of large sums and of tiny amounts', () => {
    const budget = createBudget()
    const child = budget.child()
    for (let i = 0; i < 1000; i++) child.charge({ costUsd: 999.999 })
    expect(budget.spent().costUsd).toBe(999_999)
    const tiny = createBudget({ cost: 1e-7 })
    for (let i = 0; i < 100_000; i++) tiny.charge({ costUsd: 4e-13 })
    expect(tiny.spent().costUsd).toBe(4e-8)
    expect(tiny.remaining().costUsd).toBe(6e-8)
    expect(tiny.aborted).toBe(false)
  })

  it('refuses limits that are not finite, naming the field', () => {
    for (const [limits, path] of [
      [{ seconds: 1e306 }, 'seconds'],
      [{ maxWallMs: Number.MAX_VALUE }, 'maxWallMs'],
      [{ cost: 1e300 }, 'cost'],
      [{ calls: 2 ** 60 }, 'calls'],
    ] as const) {
      const error = thrown(() => createBudget(limits)) as ValidationError
      expect(error).toBeInstanceOf(ValidationError)
      expect(error.issues.map((issue) => issue.path)).toEqual([path])
    }
    expect(createBudget({ seconds: 365 * 24 * 3600 }).limits.maxWallMs).toBe(31_536_000_000)
  })

  it('keeps cost books free of float noise', () => {
    const budget = createBudget()
    const child = budget.child()
    child.charge({ costUsd: 0.1 })
    child.charge({ costUsd: 0.2 })
    child.charge({ costUsd: 0.000025 })
    expect(budget.spent().costUsd).toBe(0.300025)
    expect(child.spent().costUsd).toBe(0.300025)
  })

  it('refuses a charge past an ancestor limit, records nothing, and aborts only the asker', () => {
    const root = createBudget({ calls: 10, cost: 1 }, { name: 'team' })
    const asker = root.child({}, { name: 'asker' })
    const sibling = root.child({ calls: 2 }, { name: 'sibling' })
    // Each child alone could afford $0.6; together they would overspend the team.
    sibling.charge({ calls: 1, costUsd: 0.5 })
    const error = thrown(() => asker.charge({ calls: 1, costUsd: 0.6 }))
    expect(error).toBeInstanceOf(BudgetExceededError)
    expect(error).toMatchObject({ budget: 'team', dimension: 'costUsd', code: 'BUDGET_EXCEEDED' })
    expect(error.message).toBe('Budget "team" needs $0.6 but has $0.5 of $1 left.')
    expect(root.spent()).toMatchObject({ calls: 1, costUsd: 0.5 })
    expect(asker.spent()).toMatchObject({ calls: 0, costUsd: 0 })
    expect(asker.aborted).toBe(true)
    expect(asker.signal.reason).toBe(error)
    expect(root.aborted).toBe(false)
    sibling.charge({ calls: 1, costUsd: 0.1 })
    expect(root.spent().calls).toBe(2)
  })

  it('aborts a budget and everything below it when a limit is used up', () => {
    const root = createBudget({ calls: 2 }, { name: 'root' })
    const child = root.child({}, { name: 'child' })
    const grandchild = child.child()
    const other = root.child({ tokens: 10 })
    other.charge({ calls: 2 })
    for (const budget of [root, child, grandchild]) {
      expect(budget.aborted).toBe(true)
      expect(budget.signal.reason).toMatchObject({ budget: 'root', dimension: 'calls' })
    }
    // `other` started with a copy of what root had left, so its own cap ran out too. When one
    // charge uses up a budget's own limit and an ancestor's, the budget's own reason wins, on
    // every runtime: budgets are aborted from the charger up, and an abort reaches only the
    // descendants not aborted yet.
    expect(other.signal.reason).toMatchObject({ budget: 'root/2', dimension: 'calls' })
    expect(thrown(() => grandchild.charge({ tokens: 1 }))).toBeInstanceOf(BudgetExceededError)
  })

  it('does not abort on a charge that leaves an unrelated zero limit untouched', () => {
    const budget = createBudget({ calls: 5, costUsd: 0 })
    budget.charge({ calls: 1, tokens: 40 })
    expect(budget.aborted).toBe(false)
    expect(thrown(() => budget.charge({ costUsd: 0.01 }))).toMatchObject({ dimension: 'costUsd' })
  })

  it('answers canAfford without charging or aborting anything', () => {
    const root = createBudget({ calls: 2 })
    const child = root.child()
    expect(child.canAfford({ calls: 2 })).toBe(true)
    expect(child.canAfford({ calls: 3 })).toBe(false)
    expect(child.aborted).toBe(false)
    expect(root.spent().calls).toBe(0)
    child.cancel()
    expect(child.canAfford({ calls: 1 })).toBe(false)
  })

  it('refuses usage that is not a whole number of calls and tokens or a sane amount of USD', () => {
    const budget = createBudget({ calls: 5 })
    const error = thrown(() => budget.charge({ calls: -1 })) as ValidationError
    expect(error.issues).toEqual([{ path: 'calls', message: 'must be a whole number ≥ 0' }])
    const fractions = thrown(() => budget.charge({ calls: 0.5, inputTokens: 1.5 }))
    expect((fractions as ValidationError).issues.map((issue) => issue.path)).toEqual([
      'calls',
      'inputTokens',
    ])
    const huge = thrown(() => createBudget().charge({ costUsd: 1e300 })) as ValidationError
    expect(huge.issues.map((issue) => issue.path)).toEqual(['costUsd'])
    expect(thrown(() => budget.reserve({ tokens: 2.5 }))).toBeInstanceOf(ValidationError)
    expect(thrown(() => budget.charge({ costUsd: Number.NaN }))).toBeInstanceOf(ValidationError)
    expect(budget.spent().calls).toBe(0)
    expect(budget.aborted).toBe(false)
  })

  describe('child', () => {
    it('gets all the parent has left by default', () => {
      const root = createBudget({ calls: 5, cost: 1 })
      root.charge({ calls: 2, costUsd: 0.25 })
      expect(root.child().limits).toEqual({ calls: 3, costUsd: 0.75 })
      expect(root.child({ calls: 1 }).limits).toEqual({ calls: 1, costUsd: 0.75 })
    })

    it('refuses to give a child more than its parent has left, naming budget and dimension', () => {
      const root = createBudget({ calls: 5, tokens: 100 }, { name: 'planner' })
      root.charge({ calls: 3 })
      const error = thrown(() => root.child({ calls: 3 }))
      expect(error).toBeInstanceOf(BudgetExceededError)
      expect(error).toMatchObject({ budget: 'planner', dimension: 'calls' })
      expect(error.details).toMatchObject({ limit: 5, spent: 3, requested: 3 })
      expect(error.message).toBe(
        'Budget "planner" cannot give a child 3 calls: it has 2 of 5 calls left.',
      )
      expect(thrown(() => root.child({ tokens: 101 }))).toMatchObject({ dimension: 'tokens' })
      expect(root.aborted).toBe(false)
    })

    it('names the ancestor whose limit is in the way', () => {
      const root = createBudget({ calls: 4 }, { name: 'root' })
      const middle = root.child({}, { name: 'middle' })
      root.child({}, { name: 'sibling' }).charge({ calls: 3 })
      const error = thrown(() => middle.child({ calls: 2 }))
      expect(error).toMatchObject({ budget: 'root', dimension: 'calls' })
      expect(error.details).toMatchObject({ limit: 4, spent: 3, requested: 2 })
    })

    it('counts what is reserved as not left', () => {
      const root = createBudget({ tokens: 100 })
      root.reserve({ tokens: 60 })
      expect(thrown(() => root.child({ tokens: 50 }))).toMatchObject({ dimension: 'tokens' })
      expect(root.child().limits.tokens).toBe(40)
    })

    it('caps the wall time of a child by what its parent has left', () => {
      let clock = 0
      const root = createBudget({ seconds: 10 }, { name: 'root', now: () => clock })
      clock = 4_000
      expect(root.child().limits.maxWallMs).toBe(6_000)
      const error = thrown(() => root.child({ seconds: 7 }))
      expect(error).toMatchObject({ budget: 'root', dimension: 'wallMs' })
    })

    it('refuses a child of a budget that was aborted', () => {
      const root = createBudget()
      root.cancel('done')
      expect(thrown(() => root.child())).toBeInstanceOf(BudgetCancelledError)
    })

    it('names children after their parent unless named', () => {
      const root = createBudget({}, { name: 'run' })
      expect(root.child().name).toBe('run/1')
      expect(root.child({}, { name: 'reviewer' }).name).toBe('reviewer')
      expect(root.child().name).toBe('run/3')
    })

    it('never gives an automatic name that a sibling already has', () => {
      const root = createBudget({}, { name: 'root' })
      expect(root.child({}, { name: 'root/2' }).name).toBe('root/2')
      const automatic = [root.child().name, root.child().name]
      expect(automatic).toEqual(['root/3', 'root/4'])
      const other = createBudget({}, { name: 'run' })
      expect(other.child().name).toBe('run/1')
      expect(other.child({}, { name: 'run/3' }).name).toBe('run/3')
      expect(other.child().name).toBe('run/4')
    })
  })
  it('refuses a name a sibling already has, naming the field and the parent, and makes nothing', () => {
    const root = createBudget({ calls: 4 }, { name: 'run' })
    const first = root.child({ calls: 1 }, { name: 'reviewer' })
    const error = thrown(() => root.child({ calls: 1 }, { name: 'reviewer' }))
    expect(error).toBeInstanceOf(ValidationError)
    expect(error.code).toBe('VALIDATION_FAILED')
    expect((error as ValidationError).issues).toEqual([
      {
        path: 'name',
        message: expect.stringContaining('budget "run" already has a child named "reviewer"'),
      },
    ])
    // A sibling that finished (or was cancelled) keeps its name: the books it left stay its own.
    first.cancel('done')
    expect(thrown(() => root.child({}, { name: 'reviewer' }))).toBeInstanceOf(ValidationError)
    expect(root.child().name).toBe('run/2')
    expect(root.remaining().calls).toBe(4)
  })

  it('refuses an explicit name that an automatic sibling was given', () => {
    const root = createBudget({}, { name: 'root' })
    expect([root.child().name, root.child().name]).toEqual(['root/1', 'root/2'])
    expect(thrown(() => root.child({}, { name: 'root/2' }))).toBeInstanceOf(ValidationError)
    // Numbers explicit children took were never automatic names, nor are numbers not yet used.
    root.child({}, { name: 'lead' })
    expect(root.child({}, { name: 'root/3' }).name).toBe('root/3')
    expect(root.child({}, { name: 'root/9' }).name).toBe('root/9')
    expect(root.child({}, { name: 'root/02' }).name).toBe('root/02')
    expect(root.child().name).toBe('root/7')
  })

  it('counts a name as automatic only as long as the numbers given so far, and from the first child', () => {
    const root = createBudget({}, { name: 'root' })
    // No child yet: no automatic name is taken.
    expect(root.child({}, { name: 'root/1' }).name).toBe('root/1')
    const nine = Array.from({ length: 8 }, () => root.child().name)
    expect(nine.at(-1)).toBe('root/9')
    // Nine children so far: a two-digit number was never given, a one-digit one was.
    expect(root.child({}, { name: 'root/10' }).name).toBe('root/10')
    expect(thrown(() => root.child({}, { name: 'root/9' }))).toBeInstanceOf(ValidationError)
    expect(root.child().name).toBe('root/11')
    expect(thrown(() => root.child({}, { name: 'root/11' }))).toBeInstanceOf(ValidationError)
    expect(root.child({}, { name: 'root/12' }).name).toBe('root/12')
    expect(root.child({}, { name: 'root/' }).name).toBe('root/')
  })

  it('tells an automatic name from one that only shares its parent’s prefix, down a deep chain', () => {
    // Sub-agents name their budgets `{root}/{id}`: each shares all of its parent's name.
    let parent = createBudget({}, { name: 'tree' })
    let id = '1'
    for (let depth = 0; depth < 200; depth += 1) {
      parent = parent.child({}, { name: `tree/${id}` })
      id = `${id}.1`
    }
    expect(parent.name).toBe(`tree/${'1.'.repeat(199)}1`)
    expect(parent.child({}, { name: `${parent.name}.1` }).name).toBe(`${parent.name}.1`)
    expect(parent.child().name).toBe(`${parent.name}/2`)
    expect(thrown(() => parent.child({}, { name: `${parent.name}/2` }))).toBeInstanceOf(
      ValidationError,
    )
    expect(parent.child({}, { name: parent.name }).name).toBe(parent.name)
    expect(parent.child({}, { name: `${parent.name.slice(0, -1)}2/3` }).name).toBe(
      `${parent.name.slice(0, -1)}2/3`,
    )
  })

  it('numbers a taken name when asked, with the first number no sibling has', () => {
    const root = createBudget({}, { name: 'plan' })
    root.child({}, { name: 'steps[0].do[1]#3' })
    const names = Array.from(
      { length: 4 },
      () => root.child({}, { name: 'steps[0].do[1]', ifTaken: 'number' }).name,
    )
    expect(names).toEqual([
      'steps[0].do[1]',
      'steps[0].do[1]#2',
      'steps[0].do[1]#4',
      'steps[0].do[1]#5',
    ])
    expect(thrown(() => root.child({}, { name: 'steps[0].do[1]#4' }))).toBeInstanceOf(
      ValidationError,
    )
  })

  it('refuses an empty name and an unknown ifTaken', () => {
    const root = createBudget({}, { name: 'run' })
    expect((thrown(() => root.child({}, { name: '' })) as ValidationError).issues[0]?.path).toBe(
      'name',
    )
    const unknown = thrown(() => root.child({}, { name: 'a', ifTaken: 'rename' as never }))
    expect((unknown as ValidationError).issues[0]?.path).toBe('ifTaken')
    expect(root.child().name).toBe('run/1')
  })

  describe('reserve', () => {
    it('holds an estimate against the whole chain until it is settled', () => {
      const root = createBudget({ calls: 3, cost: 1 })
      const child = root.child()
      const sibling = root.child()
      const reservation = child.reserve({ calls: 2, costUsd: 0.5 })
      expect(reservation.amount).toEqual({ calls: 2, tokens: 0, costUsd: 0.5 })
      expect(root.remaining()).toMatchObject({ calls: 1, costUsd: 0.5 })
      expect(root.spent().calls).toBe(0)
      expect(thrown(() => sibling.reserve({ calls: 2 }))).toMatchObject({ dimension: 'calls' })
      reservation.settle({ calls: 1, costUsd: 0.2 }, { wallet: analyst })
      expect(root.spent()).toMatchObject({ calls: 1, costUsd: 0.2 })
      expect(root.remaining()).toMatchObject({ calls: 2, costUsd: 0.8 })
      expect(root.spentByWallet()).toEqual({ [analyst]: { calls: 1, tokens: 0, costUsd: 0.2 } })
    })

    it('says what a refused reservation needed and what the budget has left', () => {
      expect(
        thrown(() => createBudget({ calls: 0 }, { name: 'plan' }).reserve({ calls: 1 })),
      ).toMatchObject({
        message: 'Budget "plan" needs 1 call but has 0 of 0 calls left.',
        details: { requested: 1, left: 0, limit: 0 },
      })
      const root = createBudget({ calls: 5, tokens: 100 }, { name: 'team' })
      root.reserve({ calls: 3, tokens: 60 })
      expect(thrown(() => root.reserve({ calls: 3 })).message).toBe(
        'Budget "team" needs 3 calls but has 2 of 5 calls left.',
      )
      expect(thrown(() => root.reserve({ tokens: 41 })).message).toBe(
        'Budget "team" needs 41 tokens but has 40 of 100 tokens left.',
      )
      const small = createBudget({ calls: 2 }, { name: 'small' })
      small.charge({ calls: 2 })
      expect(small.signal.reason.message).toBe(
        'Budget "small" is used up: it has 0 of 2 calls left.',
      )
    })

    it('gives the estimate back on release, and ignores a second settle or release', () => {
      const root = createBudget({ calls: 3 })
      const reservation = root.reserve({ calls: 3 })
      expect(root.canAfford({ calls: 1 })).toBe(false)
      reservation.release()
      expect(root.remaining().calls).toBe(3)
      reservation.settle({ calls: 1 })
      reservation.release()
      expect(root.spent().calls).toBe(0)
      expect(root.remaining().calls).toBe(3)
    })

    it('keeps the reservation held when the settled amount is invalid', () => {
      const root = createBudget({ calls: 3 })
      const reservation = root.reserve({ calls: 2 })
      expect(thrown(() => reservation.settle({ calls: -1 }))).toBeInstanceOf(ValidationError)
      expect(root.remaining().calls).toBe(1)
      reservation.settle({ calls: 2 })
      expect(root.spent().calls).toBe(2)
    })

    it('records a call that returned after its budget was cancelled, since it was paid for', () => {
      const root = createBudget({ calls: 3 })
      const child = root.child()
      const reservation = child.reserve({ calls: 1 })
      child.cancel('user stopped it')
      reservation.settle({ calls: 1, costUsd: 0.01 })
      expect(root.spent()).toMatchObject({ calls: 1, costUsd: 0.01 })
      expect(child.spent().calls).toBe(1)
      expect(root.remaining().calls).toBe(2)
      expect(() => child.charge({ calls: 1 })).toThrow(BudgetCancelledError)
    })

    it('records usage past the estimate as spent, and aborts when it reaches a limit', () => {
      const root = createBudget({ tokens: 100 })
      const reservation = root.reserve({ tokens: 50 })
      reservation.settle({ tokens: 100 })
      expect(root.spent().tokens).toBe(100)
      expect(root.aborted).toBe(true)
    })
  })

  describe('nextRelease', () => {
    it('is undefined when no reservation is held anywhere on the chain', () => {
      const root = createBudget({ cost: 1 })
      const child = root.child()
      expect(child.nextRelease()).toBeUndefined()
      root.child().reserve({ costUsd: 0.5 }).release()
      expect(child.nextRelease()).toBeUndefined()
    })

    it("resolves when a sibling's reservation is settled or released", async () => {
      const root = createBudget({ cost: 1 })
      const waiting = root.child()
      const sibling = root.child().child()
      const first = sibling.reserve({ costUsd: 0.9 })
      const second = sibling.reserve({ costUsd: 0.1 })
      const woken: string[] = []
      const settled = waiting.nextRelease()?.then(() => woken.push('settle'))
      await Promise.resolve()
      expect(woken).toEqual([])
      first.settle({ costUsd: 0.01 })
      await settled
      expect(waiting.remaining().costUsd).toBeCloseTo(0.89, 9)
      const released = waiting.nextRelease()?.then(() => woken.push('release'))
      second.release()
      await released
      expect(woken).toEqual(['settle', 'release'])
      expect(waiting.nextRelease()).toBeUndefined()
    })
  })

  describe('signal', () => {
    it('aborts with a wallMs BudgetExceededError when the deadline passes', async () => {
      const budget = createBudget({ maxWallMs: 30 }, { name: 'quick' })
      const reason = await aborted(budget)
      expect(reason).toBeInstanceOf(BudgetExceededError)
      expect(reason).toMatchObject({ budget: 'quick', dimension: 'wallMs' })
      expect(() => budget.charge({ calls: 1 })).toThrow(reason as Error)
    })

    it('aborts children and grandchildren on its own when the deadline passes', async () => {
      // The clock stands still until the test moves it, so no child can be late to the party;
      // nothing reads `aborted` afterwards: the deadline timer alone must fire the signals.
      let clock = 0
      const root = createBudget({ maxWallMs: 20 }, { name: 'quick', now: () => clock })
      const child = root.child()
      const grandchild = child.child()
      clock = 20
      const reasons = await Promise.all([aborted(root), aborted(child), aborted(grandchild)])
      for (const reason of reasons) {
        expect(reason).toBeInstanceOf(BudgetExceededError)
        expect(reason).toMatchObject({ budget: 'quick', dimension: 'wallMs' })
      }
    })

    it('blames the parent when a child reaches the deadline it inherited', () => {
      let clock = 0
      const root = createBudget({ seconds: 10 }, { name: 'root', now: () => clock })
      const child = root.child({}, { name: 'child' })
      const short = root.child({ seconds: 2 }, { name: 'short' })
      clock = 2_000
      expect(short.signal.reason).toBeUndefined()
      expect(short.aborted).toBe(true)
      expect(short.signal.reason).toMatchObject({ budget: 'short', dimension: 'wallMs' })
      expect(root.aborted).toBe(false)
      clock = 10_000
      expect(child.aborted).toBe(true)
      expect(child.signal.reason).toMatchObject({ budget: 'root', dimension: 'wallMs' })
      expect(root.signal.reason).toBe(child.signal.reason)
    })

    it('reaches the deadline on an injected clock', () => {
      let clock = 1_000
      const budget = createBudget({ seconds: 10 }, { now: () => clock })
      clock = 10_999
      expect(budget.aborted).toBe(false)
      expect(budget.remaining().wallMs).toBe(1)
      expect(budget.spent().wallMs).toBe(9_999)
      clock = 11_000
      expect(budget.aborted).toBe(true)
      expect(thrown(() => budget.charge({ calls: 1 }))).toMatchObject({ dimension: 'wallMs' })
    })

    it('lets the injected clock, not the timer, decide the deadline', async () => {
      const budget = createBudget({ maxWallMs: 20 }, { now: () => 0 })
      await new Promise((resolve) => setTimeout(resolve, 80))
      expect(budget.aborted).toBe(false)
    })

    it('does not fire deadlines longer than a timer can hold at once', async () => {
      const budget = createBudget({ seconds: 30 * 24 * 3600 })
      await new Promise((resolve) => setTimeout(resolve, 50))
      expect(budget.aborted).toBe(false)
    })
  })

  describe('signal, made when first read', () => {
    it('makes no signal for budgets nobody listens to, and an aborted one when asked late', () => {
      const made = countAbortControllers()
      try {
        const root = createBudget({ calls: 100 }, { name: 'root' })
        const branches = Array.from({ length: 20 }, () => root.child())
        for (const branch of branches) branch.charge({ calls: 1 })
        root.cancel('the run has finished')
        expect(branches.every((branch) => branch.aborted)).toBe(true)
        expect(thrown(() => branches[3]!.charge({ calls: 1 }))).toBeInstanceOf(BudgetCancelledError)
        expect(made.count).toBe(0)
        const late = branches[5]!.signal
        expect(made.count).toBe(1)
        expect(late.aborted).toBe(true)
        expect(late.reason).toBeInstanceOf(BudgetCancelledError)
        expect(late.reason).toBe(root.signal.reason)
        expect(branches[5]!.signal).toBe(late)
      } finally {
        made.restore()
      }
    })

    it('cancels every live child of a parent that has made hundreds, read or not', () => {
      const root = createBudget({}, { name: 'root' })
      const children = Array.from({ length: 300 }, () => root.child())
      const heard: number[] = []
      children[0]!.signal.addEventListener('abort', () => heard.push(0))
      children[299]!.signal.addEventListener('abort', () => heard.push(299))
      root.cancel('done')
      expect(children.filter((child) => !child.aborted)).toEqual([])
      expect(heard).toEqual([0, 299])
    })

    it('aborts a signal read before the abort, with every listener told once', () => {
      const root = createBudget({}, { name: 'root' })
      const child = root.child({}, { name: 'child' })
      const unread = child.child({}, { name: 'unread' })
      const heard: string[] = []
      child.signal.addEventListener('abort', () => heard.push('child'))
      root.cancel('stop')
      root.cancel('again')
      expect(heard).toEqual(['child'])
      expect(child.signal.reason).toBe(unread.signal.reason)
      expect((unread.signal.reason as Error).message).toBe('Budget "root" was cancelled: stop.')
    })

    it('tells the signals a budget follows without making its own', () => {
      const made = countAbortControllers()
      try {
        const root = createBudget()
        const rootSignal = root.signal
        const child = root.child().child()
        expect(followsSignal(child, rootSignal)).toBe(true)
        expect(followsSignal(child, new AbortController().signal)).toBe(false)
        // The root's signal and the foreign one: none for the child.
        expect(made.count).toBe(2)
      } finally {
        made.restore()
      }
    })
  })

  describe('followsSignal', () => {
    it("knows the signals a budget already follows: its own and its ancestors'", () => {
      const root = createBudget()
      const child = root.child()
      expect(followsSignal(child, root.signal)).toBe(true)
      expect(followsSignal(child, child.signal)).toBe(true)
      expect(followsSignal(root, child.signal)).toBe(false)
      expect(followsSignal(child, new AbortController().signal)).toBe(false)
    })
  })

  describe('cancel', () => {
    it('aborts the budget, its children and grandchildren, not its parent', async () => {
      const root = createBudget({}, { name: 'root' })
      const child = root.child({}, { name: 'child' })
      const grandchild = child.child({}, { name: 'grandchild' })
      const sibling = root.child()
      const reasons = Promise.all([aborted(child), aborted(grandchild)])
      child.cancel('superseded')
      for (const reason of await reasons) {
        expect(reason).toBeInstanceOf(BudgetCancelledError)
        expect(reason).toMatchObject({ code: 'CANCELLED' })
        expect((reason as Error).message).toBe('Budget "child" was cancelled: superseded.')
      }
      expect(thrown(() => grandchild.charge({ calls: 1 }))).toBeInstanceOf(BudgetCancelledError)
      expect(root.aborted).toBe(false)
      expect(sibling.aborted).toBe(false)
    })

    it('cascades from the root to every descendant', () => {
      const root = createBudget()
      const leaves = [root.child().child(), root.child().child().child()]
      root.cancel()
      for (const leaf of leaves) expect(leaf.aborted).toBe(true)
      expect(() => root.throwIfAborted()).toThrow('Budget "root" was cancelled.')
    })
  })

  describe('spentByWallet', () => {
    it('attributes spend to the wallet that made it, in every ancestor', () => {
      const root = createBudget()
      const child = root.child()
      child.charge({ calls: 1, tokens: 10, costUsd: 0.01 }, { wallet: analyst })
      child.charge({ calls: 1, tokens: 5 }, { wallet: analyst.toLowerCase() })
      root.charge({ calls: 1 }, { wallet: reviewer })
      root.charge({ calls: 1 })
      expect(root.spentByWallet()).toEqual({
        [analyst]: { calls: 2, tokens: 15, costUsd: 0.01 },
        [reviewer]: { calls: 1, tokens: 0, costUsd: 0 },
      })
      expect(child.spentByWallet()).toEqual({ [analyst]: { calls: 2, tokens: 15, costUsd: 0.01 } })
    })

    it('keeps each wallet apart when a budget spent by one wallet is spent by another', () => {
      const root = createBudget()
      const left = root.child()
      const right = root.child()
      const leaf = left.child()
      leaf.charge({ calls: 1, tokens: 3 }, { wallet: analyst })
      right.charge({ calls: 1, tokens: 4 }, { wallet: reviewer })
      // Read between charges, so a wallet's spend is rolled up before the next wallet spends.
      expect(root.spentByWallet()).toEqual({
        [analyst]: { calls: 1, tokens: 3, costUsd: 0 },
        [reviewer]: { calls: 1, tokens: 4, costUsd: 0 },
      })
      leaf.charge({ calls: 1, tokens: 5, costUsd: 0.02 }, { wallet: reviewer })
      leaf.charge({ calls: 1, tokens: 1 }, { wallet: analyst })
      expect(leaf.spentByWallet()).toEqual({
        [analyst]: { calls: 2, tokens: 4, costUsd: 0 },
        [reviewer]: { calls: 1, tokens: 5, costUsd: 0.02 },
      })
      expect(left.spentByWallet()).toEqual(leaf.spentByWallet())
      expect(root.spentByWallet()).toEqual({
        [analyst]: { calls: 2, tokens: 4, costUsd: 0 },
        [reviewer]: { calls: 2, tokens: 9, costUsd: 0.02 },
      })
      expect(root.spent()).toMatchObject({ calls: 4, tokens: 13, costUsd: 0.02 })
    })

    it('returns copies that do not change the budget', () => {
      const root = createBudget()
      root.charge({ calls: 1 }, { wallet: analyst })
      root.spentByWallet()[analyst]!.calls = 99
      expect(root.spentByWallet()[analyst]?.calls).toBe(1)
    })
  })

  describe('onCharge', () => {
    it('tells every ancestor about a charge, until unsubscribed', () => {
      const root = createBudget()
      const child = root.child({}, { name: 'worker' })
      const events: ChargeEvent[] = []
      const unsubscribe = root.onCharge((event) => events.push(event))
      child.charge({ calls: 1, tokens: 7 }, { wallet: analyst.toLowerCase() })
      unsubscribe()
      child.charge({ calls: 1 })
      expect(events).toEqual([
        { budget: 'worker', usage: { calls: 1, tokens: 7, costUsd: 0 }, wallet: analyst },
      ])
    })

    it('never leaves a charge half recorded when a listener throws', () => {
      const root = createBudget({ calls: 10 })
      const child = root.child()
      const seen: string[] = []
      child.onCharge(() => {
        throw new Error('listener failed')
      })
      root.onCharge(() => seen.push('root'))
      expect(() => child.charge({ calls: 1 })).toThrow('listener failed')
      expect(child.spent().calls).toBe(1)
      expect(root.spent().calls).toBe(1)
      expect(seen).toEqual(['root'])
    })

    it('is not called for a refused charge', () => {
      const root = createBudget({ calls: 1 })
      const events: ChargeEvent[] = []
      root.onCharge((event) => events.push(event))
      expect(() => root.charge({ calls: 2 })).toThrow(BudgetExceededError)
      expect(events).toEqual([])
    })
  })
})
