import { ApiError } from '../../../shared/errors'
import { listFolders } from '../system/folders'
import type { Handlers } from './handlers'

/** Opens the host's folder dialog; resolves null when the user cancels. */
export type PickFolder = (title?: string) => Promise<string | null>

export function systemHandlers({ pickFolder }: { pickFolder?: PickFolder }): Pick<Handlers, 'folders.browse' | 'folders.pick'> {
  return {
    'folders.browse': (p) => listFolders(p.path),
    'folders.pick': async (p) => {
      if (!pickFolder) throw new ApiError('unsupported', 'There is no native folder dialog here (only in the desktop app): use folders.browse')
      return { path: await pickFolder(p.title) }
    },
  }
}
