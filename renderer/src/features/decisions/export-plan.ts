/** The export box's state (ExportBox): its inputs, the dry run that plans the files, and the export itself. */
import { useEffect, useRef, useState } from 'react'
import type { ExportResult } from '../../../../shared/schemas'
import { asClientError } from '../../api/errors'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'
import { editedFilesOf, type EditedFile } from './EditedFiles'

export type Format = ExportResult['format']
export type Flavour = '' | 'madr' | 'adr-tools' | 'log4brains'

/** A download of the zip the core wrote, from the URL the bridge serves it at (once). */
function saveFrom(name: string, url: string): void {
  const a = document.createElement('a')
  a.href = url
  a.download = name
  document.body.append(a)
  a.click()
  a.remove()
}

/** What the export is asked for: the format, and the flavour and folder when chosen. */
function exportParams(workspaceId: string, format: Format, flavour: Flavour, folder: string) {
  return {
    workspaceId,
    format,
    ...(format === 'madr' && flavour ? { flavour } : {}),
    ...(folder.trim() ? { folder: folder.trim() } : {}),
  }
}

export function useExportPlan() {
  const api = useApp((s) => s.api)
  const workspaceId = useApp((s) => s.workspaceId)!
  const writes = useApp((s) => s.nativeDialogs)
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
  const params = () => exportParams(workspaceId, format, flavour, folder)
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
    <T>(set: (v: T) => void) =>
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
  return {
    writes,
    ...{ open, setOpen, format, setFormat, flavour, setFlavour, folder, setFolder },
    ...{ overwrite, overwriteChanged, edited, plan, done, preview, run, changed },
  }
}
export type ExportPlan = ReturnType<typeof useExportPlan>
