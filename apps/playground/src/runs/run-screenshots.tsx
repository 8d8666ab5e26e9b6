import { useEffect, useRef, useState } from 'react'
import { type DelegationFile, serverApi } from '../api/client'

/** Object URLs of a run's files, fetched with the page's key and let go when no longer shown. */
function useFileUrls(runId: string, files: DelegationFile[]) {
  const [urls, setUrls] = useState<Record<string, string>>({})
  const [failed, setFailed] = useState<Record<string, string>>({})
  const names = files.map((file) => file.name).join('\n')
  useEffect(() => {
    let live = true
    const made: string[] = []
    for (const name of names ? names.split('\n') : []) {
      serverApi
        .getRunFile(runId, name)
        .then((blob) => {
          if (!live) return
          const url = URL.createObjectURL(blob)
          made.push(url)
          setUrls((current) => ({ ...current, [name]: url }))
        })
        .catch((error: unknown) => {
          if (live) setFailed((current) => ({ ...current, [name]: (error as Error).message }))
        })
    }
    return () => {
      live = false
      for (const url of made) URL.revokeObjectURL(url)
      setUrls({})
      setFailed({})
    }
  }, [runId, names])
  return { urls, failed }
}

/**
 * The screenshots a task step took, as thumbnails in its node of the delegation tree; a click
 * shows one at full size (a dialog, above the tree), Escape or a click closes it.
 */
export function RunScreenshots({ runId, files }: { runId: string; files: DelegationFile[] }) {
  const { urls, failed } = useFileUrls(runId, files)
  const dialog = useRef<HTMLDialogElement>(null)
  const [open, setOpen] = useState<DelegationFile>()
  useEffect(() => {
    if (open) dialog.current?.showModal()
  }, [open])
  if (files.length === 0) return null
  return (
    <div className="screenshots nodrag nopan" data-screenshots>
      {files.map((file) =>
        urls[file.name] ? (
          <button
            key={file.name}
            type="button"
            className="screenshot-thumb"
            title={`${file.file} (${Math.ceil(file.bytes / 1024)} KiB): click to enlarge`}
            onClick={() => setOpen(file)}
          >
            <img
              src={urls[file.name]}
              alt={`Screenshot ${file.file}`}
              data-screenshot={file.name}
            />
          </button>
        ) : (
          <span key={file.name} className="screenshot-thumb muted" title={failed[file.name]}>
            {failed[file.name] ? 'not loaded' : '…'}
          </span>
        ),
      )}
      <dialog
        ref={dialog}
        className="screenshot-dialog"
        aria-label={open ? `Screenshot ${open.file}` : 'Screenshot'}
        onClose={() => setOpen(undefined)}
      >
        {open && urls[open.name] ? (
          <button
            type="button"
            className="screenshot-close"
            aria-label="Close the screenshot"
            onClick={() => dialog.current?.close()}
          >
            <img src={urls[open.name]} alt={`Screenshot ${open.file}, full size`} data-enlarged />
            <span className="muted">{open.name} · click or Escape to close</span>
          </button>
        ) : null}
      </dialog>
    </div>
  )
}
