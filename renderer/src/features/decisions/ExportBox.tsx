import { useEffect, useRef, useState } from 'react'
import type { ExportResult } from '../../../../shared/schemas'
import { asClientError } from '../../api/errors'
import { ErrorText } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { EditedFiles, editedFilesOf, type EditedFile } from './EditedFiles'

type Format = ExportResult['format']
type Flavour = '' | 'madr' | 'adr-tools' | 'log4brains'

/** A file of the export by its path in the repository (or its full path when it lies outside). */
function shown(repoFolder: string | null, outDir: string, file: string): string {
  if (repoFolder === null) return file
  const name = file.slice(outDir.length).replace(/^[\\/]/, '')
  return repoFolder ? `${repoFolder}/${name}` : name
}

/** A download of the zip the core wrote, from the URL the bridge serves it at (once). */
function saveFrom(name: string, url: string): void {
  const a = document.createElement('a')
  a.href = url
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
}

/**
 * The export box: format, flavour (MADR) and folder (defaulting to the repository's conventions), then the list of
 * files the export will write, from a dry run on the server, before anything is written. In the desktop app the
 * files are written into the repository; under `concord serve`, whose browser user may not see the server's
 * checkout, the same files come as a zip to download.
 */
export function ExportBox() {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)!
  const writes = useApp((s) => s.nativeDialogs)
  const repoPath = useApp((s) => s.workspaces.find((w) => w.id === s.workspaceId)?.repoPath)
  const [open, setOpen] = useState(false)
  const [format, setFormat] = useState<Format>('madr')
  // '' leaves the flavour to the repository's conventions (the core reads .log4brains.yml / .adr-dir).
  const [flavour, setFlavour] = useState<Flavour>('')
  // '' leaves the folder to the conventions too; the preview shows which one that is.
  const [folder, setFolder] = useState('')
  // Files changed since Concord wrote them are refused (file_edited) until the user chooses to overwrite them.
  const [overwrite, setOverwrite] = useState(false)
  // The refused files stay listed (with the box ticked) while the export plans again with overwriting.
  const [edited, setEdited] = useState<EditedFile[] | null>(null)
  const [plan, setPlan] = useState<ExportResult | null>(null)
  const [done, setDone] = useState<string | null>(null)
  const params = () => ({
    workspaceId,
    format,
    ...(format === 'madr' && flavour ? { flavour } : {}),
    ...(folder.trim() ? { folder: folder.trim() } : {}),
  })
  // Only the answer to the newest inputs is shown (an older dry run may answer last).
  const seq = useRef(0)
  const preview = useAction(async () => {
    const mine = ++seq.current
    try {
      const r = await api.call('export.decisionLog', {
        ...params(),
        dryRun: true,
        ...(overwrite ? { overwriteEdited: true } : {}),
      })
      if (mine === seq.current) setPlan(r)
    } catch (err) {
      const files = editedFilesOf(asClientError(err))
      if (files && mine === seq.current) setEdited(files)
      throw err
    }
  })
  const refused = editedFilesOf(preview.error)
  /** Any change of the inputs drops the plan shown: the button writes only what was listed. */
  const replan = () => {
    seq.current++
    setPlan(null)
    setDone(null)
  }
  const overwriteChanged = (v: boolean) => {
    replan()
    setOverwrite(v)
  }
  const changed =
    <T,>(set: (v: T) => void) =>
    (v: T) => {
      replan()
      setEdited(null)
      setOverwrite(false)
      set(v)
    }
  const run = useAction(async () => {
    if (writes) {
      const r = await api.call('export.decisionLog', { ...params(), ...(overwrite ? { overwriteEdited: true } : {}) })
      setPlan({ ...r, changed: [] })
      setDone(`Wrote ${r.changed.length} of ${r.files.length} file${r.files.length === 1 ? '' : 's'}.`)
    } else {
      const z = await api.call('export.download', params())
      saveFrom(z.name, z.url)
      setDone(`Downloaded ${z.name} (${z.count} file${z.count === 1 ? '' : 's'}).`)
    }
  })
  // Opening the box and every change of format, flavour or folder plans again (a typed folder after a pause).
  const run0 = preview.run
  useEffect(() => {
    if (!open) return
    const timer = setTimeout(() => void run0(), folder ? 350 : 0)
    return () => clearTimeout(timer)
  }, [open, format, flavour, folder, overwrite, run0])

  if (!open)
    return (
      <div className="export-box">
        <div className="export-row">
          <span className="muted">Export the decision log</span>
          <span className="spacer" />
          <button className="btn small" onClick={() => setOpen(true)} data-testid="export-open">
            Export…
          </button>
        </div>
      </div>
    )
  const n = plan?.files.length ?? 0
  // A refused export has no plan to name its folder: a file is shown by its path in the repository where it is there.
  const inRepo = (f: string) =>
    repoPath && f.startsWith(repoPath) && /^[\\/]/.test(f.slice(repoPath.length)) ? f.slice(repoPath.length + 1) : f
  return (
    <div className="export-box" data-testid="export-box">
      <div className="export-row">
        <span className="muted">Export the decision log</span>
        <span className="spacer" />
        <button className="btn small ghost" onClick={() => changed(setOpen)(false)}>
          Close
        </button>
      </div>
      <div className="export-fields">
        <label>
          <span className="field-label">Format</span>
          <select
            value={format}
            onChange={(e) => changed(setFormat)(e.target.value as Format)}
            aria-label="Export format"
          >
            <option value="madr">MADR files</option>
            <option value="markdown">One Markdown log</option>
            <option value="json">JSON (full fidelity)</option>
          </select>
        </label>
        {format === 'madr' && (
          <label>
            <span className="field-label">Flavour</span>
            <select
              value={flavour}
              onChange={(e) => changed(setFlavour)(e.target.value as Flavour)}
              aria-label="MADR flavour"
              data-testid="export-flavour"
            >
              <option value="">As the repository says</option>
              <option value="madr">MADR 4</option>
              <option value="adr-tools">adr-tools</option>
              <option value="log4brains">log4brains</option>
            </select>
          </label>
        )}
        <label className="export-folder">
          <span className="field-label">Folder in the repository</span>
          <input
            value={folder}
            onChange={(e) => changed(setFolder)(e.target.value)}
            placeholder={plan && !folder ? plan.folder || '(the repository’s root)' : 'as the repository says'}
            aria-label="Export folder"
            data-testid="export-folder"
            spellCheck={false}
          />
        </label>
      </div>
      {edited && <EditedFiles files={edited} shown={inRepo} overwrite={overwrite} onOverwrite={overwriteChanged} />}
      <ErrorText error={preview.error && !refused ? preview.error.message : null} />
      {plan && (
        <div className="export-result" data-testid="export-plan">
          {done ? (
            <span data-testid="export-done">{done}</span>
          ) : (
            <>
              {writes ? 'Will write' : 'The zip will hold'} {n} file{n === 1 ? '' : 's'}
              {writes && plan.folder !== null && (
                <>
                  {' '}
                  in <code>{plan.folder || '.'}</code>
                </>
              )}
              {writes && plan.changed.length < n && ` (${n - plan.changed.length} unchanged)`}:
            </>
          )}
          <ul>
            {plan.files.slice(0, 12).map((f) => (
              <li key={f}>
                <code>{shown(plan.folder, plan.outDir, f)}</code>
                {!done && writes && (
                  <span className="muted"> · {plan.changed.includes(f) ? 'new or changed' : 'unchanged'}</span>
                )}
              </li>
            ))}
            {plan.files.length > 12 && <li className="muted">…and {plan.files.length - 12} more</li>}
            {!done &&
              writes &&
              plan.removed.map((f) => (
                <li key={f} className="muted">
                  <code>{shown(plan.folder, plan.outDir, f)}</code> · removed (renamed)
                </li>
              ))}
          </ul>
        </div>
      )}
      <ErrorText error={run.error && !editedFilesOf(run.error) ? `Export failed: ${run.error.message}` : null} />
      <div className="export-row">
        <span className="muted">
          {writes
            ? 'Files Concord did not write, and its own files changed since, are never overwritten unasked.'
            : 'Nothing is written on the server.'}
        </span>
        <span className="spacer" />
        <button
          className="btn small primary"
          disabled={!plan || preview.pending || run.pending || Boolean(done)}
          onClick={() => void run.run()}
          data-testid="export-run"
        >
          {writes ? `Write ${n} file${n === 1 ? '' : 's'}` : 'Download zip'}
        </button>
      </div>
    </div>
  )
}
