import { describe, expect, it } from 'vitest'
import { createRunNotifier, type RunDelta } from './run-notifier'

let sequence = 0
const delta = (runId: string, text: string, path = 'steps[0]'): RunDelta => ({
  type: 'step-delta',
  runId,
  sequence: ++sequence,
  at: new Date(0).toISOString(),
  path,
  op: 'delegate',
  wallet: '0x1111111111111111111111111111111111111111',
  text,
})

const textOf = (notifier: ReturnType<typeof createRunNotifier>, runId: string) =>
  notifier.textSoFar(runId).map((each) => `${each.path}:${each.text}`)

describe('createRunNotifier', () => {
  it("hands a run's streamed text to its listeners and keeps each step's text whole, in step order", () => {
    const notifier = createRunNotifier()
    const heard: string[] = []
    const off = notifier.listenDeltas('run-1', (each) => heard.push(each.text))
    notifier.delta(delta('run-1', 'Hel'))
    notifier.delta(delta('run-1', 'Other', 'steps[1]'))
    notifier.delta(delta('run-1', 'lo'))
    off()
    notifier.delta(delta('run-1', '!', 'steps[1]'))
    expect(heard).toEqual(['Hel', 'Other', 'lo'])
    expect(textOf(notifier, 'run-1')).toEqual(['steps[0]:Hello', 'steps[1]:Other!'])
    notifier.forget('run-1')
    expect(notifier.textSoFar('run-1')).toEqual([])
  })

  it('hands a listener from the start the text so far, one delta per step, in the same turn, then the live text', () => {
    const notifier = createRunNotifier()
    notifier.delta(delta('run-1', 'Hel'))
    notifier.delta(delta('run-1', 'Other', 'steps[1]'))
    notifier.delta(delta('run-1', 'lo'))
    const heard: string[] = []
    notifier.listenDeltas('run-1', (each) => heard.push(`${each.path}:${each.text}`), {
      fromStart: true,
    })
    expect(heard).toEqual(['steps[0]:Hello', 'steps[1]:Other'])
    notifier.delta(delta('run-1', '!'))
    expect(heard).toEqual(['steps[0]:Hello', 'steps[1]:Other', 'steps[0]:!'])
    // Without it, only what streams from now on.
    const later: string[] = []
    notifier.listenDeltas('run-1', (each) => later.push(each.text))
    notifier.delta(delta('run-1', '?'))
    expect(later).toEqual(['?'])
  })

  it("forgets a run's text once it has streamed nothing for keptForMs, and keeps a run that streamed since", () => {
    let now = 0
    const notifier = createRunNotifier({ now: () => now, keptForMs: 100 })
    notifier.delta(delta('old', 'a'))
    notifier.delta(delta('busy', 'b'))
    now = 60
    notifier.delta(delta('busy', 'c'))
    now = 150
    notifier.delta(delta('new', 'd'))
    expect(notifier.textSoFar('old')).toEqual([])
    expect(textOf(notifier, 'busy')).toEqual(['steps[0]:bc'])
    expect(textOf(notifier, 'new')).toEqual(['steps[0]:d'])
  })

  it('keeps at most maxKeptCharacters of a run, and at most maxKeptTotalCharacters of all runs, dropping the run that streamed least recently', () => {
    const notifier = createRunNotifier({ maxKeptCharacters: 8, maxKeptTotalCharacters: 10 })
    notifier.delta(delta('first', '1234'))
    notifier.delta(delta('second', '1234'))
    // Past its own bound: the piece is not kept (the reader gets the stored events anyway).
    notifier.delta(delta('second', '123456'))
    expect(textOf(notifier, 'second')).toEqual(['steps[0]:1234'])
    // `first` streams again, so `second` is now the one that streamed least recently.
    notifier.delta(delta('first', '5'))
    notifier.delta(delta('third', '123'))
    expect(notifier.textSoFar('second')).toEqual([])
    expect(textOf(notifier, 'first')).toEqual(['steps[0]:12345'])
    expect(textOf(notifier, 'third')).toEqual(['steps[0]:123'])
    // What a forgotten run held is free again.
    notifier.forget('first')
    notifier.delta(delta('fourth', '1234567'))
    expect(textOf(notifier, 'third')).toEqual(['steps[0]:123'])
    expect(textOf(notifier, 'fourth')).toEqual(['steps[0]:1234567'])
  })

  it('never drops the run that is streaming to stay under the total', () => {
    const notifier = createRunNotifier({ maxKeptCharacters: 20, maxKeptTotalCharacters: 5 })
    notifier.delta(delta('other', '12'))
    notifier.delta(delta('long', '12345678'))
    expect(notifier.textSoFar('other')).toEqual([])
    expect(textOf(notifier, 'long')).toEqual(['steps[0]:12345678'])
  })
})
