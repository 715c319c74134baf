import type { ExportResult } from '../../../../shared/schemas'
import { SelectOne } from '../../components/SelectOne'
import { ErrorText } from '../../components/ui'
import { useApp } from '../../stores/app-store'
import { EditedFiles, editedFilesOf } from './EditedFiles'
import { useExportPlan, type ExportPlan, type Flavour, type Format } from './export-plan'

/** A file of the export by its path in the repository (or its full path when it lies outside). */
function shown(repoFolder: string | null, outDir: string, file: string): string {
  if (repoFolder === null) return file
  const name = file.slice(outDir.length).replace(/^[\\/]/, '')
  return repoFolder ? `${repoFolder}/${name}` : name
}

/**
 * The export box: format, flavour (MADR) and folder (defaulting to the repository's conventions), then the list of
 * files the export will write, from a dry run on the server, before anything is written. In the desktop app the
 * files are written into the repository; under `concord serve`, whose browser user may not see the server's
 * checkout, the same files come as a zip to download.
 */
export function ExportBox() {
  const repoPath = useApp((s) => s.workspaces.find((w) => w.id === s.workspaceId)?.repoPath)
  const x = useExportPlan()
  const { writes, plan, done, preview, run, edited, overwrite } = x
  const refused = editedFilesOf(preview.error)
  if (!x.open)
    return (
      <div className="export-box">
        <div className="export-row">
          <span className="muted">Export the decision log</span>
          <span className="spacer" />
          <button className="btn small" onClick={() => x.setOpen(true)} data-testid="export-open">
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
        <button className="btn small ghost" onClick={() => x.changed(x.setOpen)(false)}>
          Close
        </button>
      </div>
      <ExportFields x={x} />
      {edited && <EditedFiles files={edited} shown={inRepo} overwrite={overwrite} onOverwrite={x.overwriteChanged} />}
      <ErrorText error={preview.error && !refused ? preview.error.message : null} />
      {plan && <ExportPlanList plan={plan} done={done} writes={writes} />}
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

const formats: { value: Format; text: string }[] = [
  { value: 'madr', text: 'MADR files' },
  { value: 'markdown', text: 'One Markdown log' },
  { value: 'json', text: 'JSON (full fidelity)' },
]

const flavours: { value: Flavour; text: string }[] = [
  { value: '', text: 'As the repository says' },
  { value: 'madr', text: 'MADR 4' },
  { value: 'adr-tools', text: 'adr-tools' },
  { value: 'log4brains', text: 'log4brains' },
]

/** The export's inputs: format, flavour (MADR) and folder. */
function ExportFields({ x }: { x: ExportPlan }) {
  const { format, flavour, folder, plan, changed } = x
  return (
    <div className="export-fields">
      <label>
        <span className="field-label">Format</span>
        <SelectOne value={format} onChange={(v) => changed(x.setFormat)(v)} options={formats} label="Export format" />
      </label>
      {format === 'madr' && (
        <label>
          <span className="field-label">Flavour</span>
          <SelectOne
            value={flavour}
            onChange={(v) => changed(x.setFlavour)(v)}
            options={flavours}
            label="MADR flavour"
            testId="export-flavour"
          />
        </label>
      )}
      <label className="export-folder">
        <span className="field-label">Folder in the repository</span>
        <input
          value={folder}
          onChange={(e) => changed(x.setFolder)(e.target.value)}
          placeholder={plan && !folder ? plan.folder || '(the repository’s root)' : 'as the repository says'}
          aria-label="Export folder"
          data-testid="export-folder"
          spellCheck={false}
        />
      </label>
    </div>
  )
}

/** The files the export will write (or wrote), from its dry run. */
function ExportPlanList({ plan, done, writes }: { plan: ExportResult; done: string | null; writes: boolean }) {
  const n = plan.files.length
  return (
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
  )
}
