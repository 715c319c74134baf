// Interim: the export/import handlers land with their own commit (issue 5).
import { ApiError } from '../../../shared/errors'
import type { Harness } from '../harness/harness'
import type { Handlers } from './handlers'

export function exportHandlers(_deps: { harness: Harness }): Pick<Handlers, 'export.decisionLog' | 'import.workspace'> {
  const pending = () => {
    throw new ApiError('internal', 'export and import are not available in this build yet')
  }
  return { 'export.decisionLog': pending, 'import.workspace': pending }
}
