/**
 * "Open the task's tree" on its card. In the desktop app: one click opens it in the user's editor (the last one picked
 * in the menu), the menu also in a terminal or the file manager. Under `concord serve` the page cannot open programs:
 * it copies the tree's path and shows it.
 */
import { useState } from 'react'
import { editorNames, Editor, type OpenTreeIn, type Task } from '../../../../shared/schemas'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { setEditorPref, useEditorPref } from './editor-pref'
import './open-tree.css'

export function OpenTree({ task }: { task: Task }) {
  const api = useApp((s) => s.api)
  const canOpen = useApp((s) => s.system?.openTree === true)
  const editor = useEditorPref()
  const [copied, setCopied] = useState<{ path: string; onClipboard: boolean } | null>(null)
  const open = useAction((where: OpenTreeIn, with_: Editor) =>
    api.call('tasks.openTree', { taskId: task.id, in: where, editor: with_ }),
  )
  const copy = useAction(async () => {
    const { path } = await api.call('tasks.treePath', { taskId: task.id })
    // Only a secure page (localhost, https) may write the clipboard: elsewhere the path is shown to copy by hand.
    const onClipboard = await navigator.clipboard?.writeText(path).then(
      () => true,
      () => false,
    )
    setCopied({ path, onClipboard })
  })
  if (!task.branch || task.merged || task.status === 'cancelled') return null
  const error = open.error?.message ?? copy.error?.message
  return (
    <div className="open-tree small" data-testid="open-tree">
      {canOpen ? (
        <>
          <button
            className="btn small"
            disabled={open.pending}
            onClick={() => void open.run('editor', editor)}
            title={`Open ${task.key}'s tree (its own clone, in Concord's data folder) in ${editorNames[editor]}`}
            data-testid="open-tree-editor"
          >
            Open in {editorNames[editor]}
          </button>
          <select
            className="small"
            value=""
            aria-label={`Open ${task.key}'s tree in…`}
            onChange={(e) => {
              const v = e.target.value
              if (v === 'terminal' || v === 'files') void open.run(v, editor)
              else if (Editor.safeParse(v).success) {
                setEditorPref(v as Editor)
                void open.run('editor', v as Editor)
              }
            }}
          >
            <option value="">Open in…</option>
            <option value="terminal">a terminal</option>
            <option value="files">the file manager</option>
            <optgroup label="Editor">
              {Editor.options.map((e) => (
                <option key={e} value={e}>
                  {editorNames[e]}
                </option>
              ))}
            </optgroup>
          </select>
        </>
      ) : (
        <button
          className="btn small"
          disabled={copy.pending}
          onClick={() => void copy.run()}
          title="The browser cannot open your editor or a terminal: copy the path of the task's tree and open it there"
          data-testid="copy-tree-path"
        >
          Copy tree path
        </button>
      )}
      {copied && (
        <span className="open-tree-path" data-testid="tree-path">
          {copied.onClipboard ? 'Copied' : 'Copy'} <code title={copied.path}>{copied.path}</code>
        </span>
      )}
      <ErrorText error={error} />
    </div>
  )
}
