import { yaml } from '@codemirror/lang-yaml'
import { linter, lintGutter } from '@codemirror/lint'
import { StateEffect } from '@codemirror/state'
import { EditorView } from '@codemirror/view'
import { basicSetup } from 'codemirror'
import { useEffect, useRef } from 'react'
import { serverApi } from '../api/client'
import type { PlanIssue } from './plan-diagnostics'
import { createPlanLinter, type ValidatePlan } from './plan-linter'

// Says "the server's issues changed": the linter runs again though the text did not.
const serverIssuesChanged = StateEffect.define<null>()

export type MalEditorProps = {
  value: string
  onChange: (value: string) => void
  /** Issues the server reported for the current text (shown beside the local ones). */
  serverIssues: readonly PlanIssue[]
  /** The server's check of the text as one types (default: `POST /api/v1/plans/validate`). */
  validate?: ValidatePlan
}

/** A YAML editor for MAL plans that marks every problem at its line as one types. */
export function MalEditor({
  value,
  onChange,
  serverIssues,
  validate = serverApi.validatePlan,
}: MalEditorProps) {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView>(null)
  const latest = useRef({ onChange, serverIssues })
  latest.current = { onChange, serverIssues }

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is made once; value is synced below
  useEffect(() => {
    const lint = createPlanLinter({ validate, extraIssues: () => latest.current.serverIssues })
    const editor = new EditorView({
      parent: host.current!,
      doc: value,
      extensions: [
        basicSetup,
        yaml(),
        lintGutter(),
        linter((current) => lint(current.state.doc), {
          // The debounce: the server is asked once typing pauses, not at every key.
          delay: 300,
          needsRefresh: (update) =>
            update.transactions.some((transaction) =>
              transaction.effects.some((effect) => effect.is(serverIssuesChanged)),
            ),
        }),
        EditorView.updateListener.of((update) => {
          if (update.docChanged) latest.current.onChange(update.state.doc.toString())
        }),
        EditorView.contentAttributes.of({ 'aria-label': 'MAL plan (YAML)' }),
      ],
    })
    view.current = editor
    return () => editor.destroy()
  }, [])

  useEffect(() => {
    const editor = view.current
    if (editor && editor.state.doc.toString() !== value) {
      editor.dispatch({ changes: { from: 0, to: editor.state.doc.length, insert: value } })
    }
  }, [value])

  useEffect(() => {
    if (serverIssues) view.current?.dispatch({ effects: serverIssuesChanged.of(null) })
  }, [serverIssues])

  return <div className="editor" ref={host} data-testid="mal-editor" />
}
