import { yaml } from '@codemirror/lang-yaml'
import { linter, lintGutter } from '@codemirror/lint'
import { StateEffect } from '@codemirror/state'
import { EditorView } from '@codemirror/view'
import { basicSetup } from 'codemirror'
import { useEffect, useRef } from 'react'
import { checkPlanSyntax, type PlanIssue, planDiagnostics } from './plan-diagnostics'

// Says "the server's issues changed": the linter runs again though the text did not.
const serverIssuesChanged = StateEffect.define<null>()

export type MalEditorProps = {
  value: string
  onChange: (value: string) => void
  /** Issues the server reported for the current text (shown beside the local ones). */
  serverIssues: readonly PlanIssue[]
}

/** A YAML editor for MAL plans that marks every problem at its line as one types. */
export function MalEditor({ value, onChange, serverIssues }: MalEditorProps) {
  const host = useRef<HTMLDivElement>(null)
  const view = useRef<EditorView>(null)
  const latest = useRef({ onChange, serverIssues })
  latest.current = { onChange, serverIssues }

  // biome-ignore lint/correctness/useExhaustiveDependencies: the editor is made once; value is synced below
  useEffect(() => {
    const editor = new EditorView({
      parent: host.current!,
      doc: value,
      extensions: [
        basicSetup,
        yaml(),
        lintGutter(),
        linter(
          (current) =>
            planDiagnostics(current.state.doc, [
              ...checkPlanSyntax(current.state.doc.toString()),
              ...latest.current.serverIssues,
            ]),
          {
            delay: 250,
            needsRefresh: (update) =>
              update.transactions.some((transaction) =>
                transaction.effects.some((effect) => effect.is(serverIssuesChanged)),
              ),
          },
        ),
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
