import { exportDecisionLog, exportDownload } from '../export/export'
import { importWorkspace } from '../export/import'
import type { Harness } from '../harness/harness'
import type { Handlers } from './handlers'

export function exportHandlers({
  harness,
}: {
  harness: Harness
}): Pick<Handlers, 'export.decisionLog' | 'export.download' | 'import.workspace'> {
  const openStore = (file: string) => harness.openStore(file)
  return {
    'export.decisionLog': (p) => exportDecisionLog(harness, p),
    'export.download': (p) => exportDownload(harness, p),
    'import.workspace': (p) => importWorkspace({ harness, openStore }, p),
  }
}
