import type { ClientError } from '../../api/errors'
import { CheckboxRow } from '../../components/CheckboxRow'

export interface EditedFile {
  path: string
  change: string
}

/** The files an export refused with file_edited (changed since Concord wrote them), or null for any other error. */
export function editedFilesOf(error: ClientError | null): EditedFile[] | null {
  if (error?.code !== 'file_edited') return null
  const files = (error.details as { files?: unknown } | undefined)?.files
  return Array.isArray(files) ? (files as EditedFile[]) : []
}

/**
 * What the export would drop: each file of Concord's that was changed since it was written (a status adr-tools
 * rewrote, a hand edit), with its change, and the one way to go on from here (the change made in Concord or undone
 * in the file needs no box: the export plans again when the box is reopened).
 */
export function EditedFiles({
  files,
  shown,
  overwrite,
  onOverwrite,
}: {
  files: EditedFile[]
  shown: (path: string) => string
  overwrite: boolean
  onOverwrite: (v: boolean) => void
}) {
  return (
    <div className="export-edited" role="alert" data-testid="export-edited">
      <strong>
        {files.length === 1 ? 'A file was' : `${files.length} files were`} changed since Concord wrote{' '}
        {files.length === 1 ? 'it' : 'them'}
      </strong>
      <ul>
        {files.map((f) => (
          <li key={f.path}>
            <code>{shown(f.path)}</code>: {f.change}.
          </li>
        ))}
      </ul>
      <p className="muted">
        Make the change in Concord (or undo it in the file) and export again; or overwrite, and the change in the file
        is lost.
      </p>
      <CheckboxRow className="export-overwrite" checked={overwrite} onChange={onOverwrite} testId="export-overwrite">
        Overwrite {files.length === 1 ? 'this file' : 'these files'}
      </CheckboxRow>
    </div>
  )
}
