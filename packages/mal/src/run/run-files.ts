import type { HostFile } from '../host/collect-task-files'

/** A file a step left behind (a sub-agent's screenshot), as the run keeps it. */
export type RunFile = {
  runId: string
  /**
   * The file's name in the run, unique within it: the step's path, its loop iteration if any,
   * and the file's path in the task's directory (`steps[0]/screenshots/screenshot-1.png`).
   */
  name: string
  /** The step that made it. */
  path: string
  mediaType: string
  data: Uint8Array
}

/**
 * Where a run keeps the files its steps leave behind (the server: its database). Without one,
 * nothing is collected: a task's files go with its temporary directory.
 */
export type RunFileStore = {
  /** Keeps `file` (a second file of the same name in the run replaces the first). */
  save(file: RunFile): Promise<void>
}

/**
 * The name of a step's file in its run: the step's path, its loop iteration (so the same step
 * in another iteration keeps its own), then the file's path in the task's directory.
 *
 * @example
 * runFileName({ path: 'steps[1].steps[0]', iteration: 2, file: 'screenshots/screenshot-1.png' })
 * // 'steps[1].steps[0]/iteration-2/screenshots/screenshot-1.png'
 */
export function runFileName(options: { path: string; iteration?: number; file: string }): string {
  const iteration = options.iteration === undefined ? '' : `iteration-${options.iteration}/`
  return `${options.path}/${iteration}${options.file}`
}

/** Where a step is in its run, as its events say it. */
type StepWhere = { path: string; op: string; saveAs?: string; iteration?: number }

/** A `step-file` event before the run numbers it. */
type StepFileBody = StepWhere & {
  type: 'step-file'
  wallet: string
  name: string
  file: string
  mediaType: string
  bytes: number
}

/**
 * Saves a task's screenshots in the run's store, one after another, and announces each with a
 * `step-file` event once it is saved (so a reader who sees the event can fetch the file).
 *
 * @example
 * const onFiles = keepFiles({ runId, store }, where, emit)
 * await onFiles(files, agent.wallet)
 */
export function keepFiles(
  files: { runId: string; store: RunFileStore },
  where: StepWhere,
  emit: (event: StepFileBody) => void,
): (taken: HostFile[], wallet: string) => Promise<void> {
  return async (taken, wallet) => {
    for (const file of taken) {
      const name = runFileName({
        path: where.path,
        ...(where.iteration === undefined ? {} : { iteration: where.iteration }),
        file: file.path,
      })
      await files.store.save({
        runId: files.runId,
        name,
        path: where.path,
        mediaType: file.mediaType,
        data: file.data,
      })
      emit({
        type: 'step-file',
        ...where,
        wallet,
        name,
        file: file.path,
        mediaType: file.mediaType,
        bytes: file.data.byteLength,
      })
    }
  }
}
