import { exportDecisionLog } from '../export/export'
import { importWorkspace } from '../export/import'
import type { Harness } from '../harness/harness'
import { WorkspaceStore } from '../store/workspace-store'
import type { Handlers } from './handlers'

/**
 * The better-sqlite3 binding the harness opens its files with (Electron passes one built for its
 * ABI). Harness keeps it private; an imported workspace file must be opened the same way.
 */
function nativeBindingOf(harness: Harness): string | undefined {
  return (harness as unknown as { options?: { nativeBinding?: string } }).options?.nativeBinding
}

export function exportHandlers({ harness }: { harness: Harness }): Pick<Handlers, 'export.decisionLog' | 'import.workspace'> {
  const openStore = (file: string) => WorkspaceStore.open(file, { nativeBinding: nativeBindingOf(harness) })
  return {
    'export.decisionLog': (p) => exportDecisionLog(harness, p),
    'import.workspace': (p) => importWorkspace({ harness, openStore }, p),
  }
}
