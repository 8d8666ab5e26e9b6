/** `tiny`: small counts, a smoke test in seconds; `full`: the sizes of issue 14. */
export type Size = 'tiny' | 'full'

/** Who does the work of a case: the physical limit, the two peers, or Baton. */
export type Subject = 'bare' | 'langgraph' | 'agents' | 'baton'

export const SUBJECTS: readonly Subject[] = ['bare', 'langgraph', 'agents', 'baton']

/** What one subject measured: a headline value (in the case's unit) and what it is made of. */
export type Figure = {
  value: number
  /** How the cell shows it (default: the value, rounded). */
  text?: string
  /** Peak RSS growth during the work, MiB. */
  memoryMiB?: number
  /** Named sub-figures (variants, sizes), kept in the JSON. */
  details?: Record<string, number | string | boolean>
}

/** One row of the table. */
export type BenchCase = {
  /** For `--only`. */
  name: string
  /** The row's label at a size. */
  work(size: Size): string
  unit: string
  /** Throughput rows (messages/s, requests/s): more is better. */
  higherIsBetter?: boolean
  target: {
    text: string
    /** Whether Baton's figure meets it, given the figures of everyone else in the same run. */
    met(baton: Figure, others: Partial<Record<Subject, Figure>>): boolean
  }
  /** Who does the work, in the order they are measured. */
  subjects: readonly Subject[]
  /** Its measuring process writes its own profiles (`--profile`): none is taken around it. */
  profilesItself?: boolean
  /** Imported only in the process that measures, so a package that is broken breaks its rows only. */
  load(): Promise<Subjects>
}

/** How each subject does a case's work. */
export type Subjects = Partial<Record<Subject, (size: Size) => Promise<Figure>>>
