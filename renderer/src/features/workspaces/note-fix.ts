import type { WorkspaceSettings } from '../../../../shared/schemas'
import type { ClientApi } from '../../api/bridge-client'
import { useAction } from '../../lib/use-action'
import { useApp, useAppStore } from '../../stores/app-store'

/**
 * The action of an offer under a workspace's note (a branch per task, the first commit): `fix` asks the core and
 * returns the workspace's settings after it. If that workspace is still open they are applied and the note the fix
 * answers (the one that starts with `note`) goes; then `onDone`.
 */
export function useNoteFix<A extends unknown[]>(
  note: string,
  fix: (api: ClientApi, workspaceId: string, ...args: A) => Promise<WorkspaceSettings>,
  onDone?: () => void,
) {
  const workspaceId = useApp((s) => s.workspaceId)
  const api = useApp((s) => s.api)
  const store = useAppStore()
  return useAction(async (...args: A) => {
    if (!workspaceId) return
    const settings = await fix(api, workspaceId, ...args)
    if (store.getState().workspaceId === workspaceId)
      store.setState({
        workspaceSettings: settings,
        workspaceNotes: store.getState().workspaceNotes.filter((n) => !n.startsWith(note)),
      })
    onDone?.()
  })
}
