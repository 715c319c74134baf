import { exportDecisionLog } from '../export/export'
import { importWorkspace } from '../export/import'
import type { Harness } from '../harness/harness'
import type { Handlers } from './handlers'

export function exportHandlers({
  harness,
}: {
  harness: Harness
}): Pick<Handlers, 'export.decisionLog' | 'import.workspace'> {
  const openStore = (file: string) => harness.openStore(file)
  return {
    'export.decisionLog': (p) => exportDecisionLog(harness, p),
    'import.workspace': (p) => importWorkspace({ harness, openStore }, p),
  }
}
