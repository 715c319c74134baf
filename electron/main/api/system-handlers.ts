import { ApiError } from '../../../shared/errors'
import type { SystemInfo } from '../../../shared/schemas'
import type { SecretStore } from '../platform/secrets/secret-store'
import { sandboxStatus } from '../platform/sandbox/status'
import { listFolders } from '../platform/system/folders'
import { sshControlDir } from '../platform/ssh'
import { checkRunner } from '../runtime/runner/check'
import type { Handlers } from './handlers'

/** Opens the host's folder dialog; resolves null when the user cancels. */
export type PickFolder = (title?: string) => Promise<string | null>

/** Shows a system notification; false when the system has none. */
export type Notify = (title: string, body: string) => boolean

export interface SystemDeps {
  pickFolder?: PickFolder
  notify?: Notify
  /** The host opens task trees (tasks.openTree): the desktop app. */
  canOpenTree?: boolean
  secrets: Pick<SecretStore, 'protection'>
  /** The data folder: ssh's control sockets are kept by it (platform/ssh.ts sshControlDir). */
  dataDir: string
}

/** system.info, one line per field: a new field (the command sandbox, say) is one more line here and in SystemInfo. */
async function systemInfo(deps: SystemDeps): Promise<SystemInfo> {
  return {
    secrets: deps.secrets.protection,
    sandbox: await sandboxStatus(),
    openTree: deps.canOpenTree === true,
  }
}

/** What an OpenAI-compatible server lists at GET <baseURL>/models ({ data: [{ id }] }), in its order. */
export async function providerModels(
  baseURL: string,
  apiKey?: string,
): Promise<{ models: string[]; unavailable?: string }> {
  const url = `${baseURL.replace(/\/+$/, '')}/models`
  const none = (unavailable: string) => ({ models: [], unavailable })
  let res: Response
  try {
    res = await fetch(url, {
      headers: apiKey ? { authorization: `Bearer ${apiKey}` } : {},
      signal: AbortSignal.timeout(5000),
    })
  } catch (err) {
    return none(`${url} did not answer: ${(err as Error).message}`)
  }
  if (!res.ok) return none(`${url} answered ${res.status} ${res.statusText}`.trim())
  const body = (await res.json().catch(() => null)) as { data?: unknown } | null
  if (!Array.isArray(body?.data)) return none(`${url} did not answer with a list of models`)
  const ids = body.data.map((m: unknown) => (m as { id?: unknown } | null)?.id)
  return { models: ids.filter((id): id is string => typeof id === 'string' && id !== '').slice(0, 500) }
}

export function systemHandlers(
  deps: SystemDeps,
): Pick<
  Handlers,
  'folders.browse' | 'folders.pick' | 'system.info' | 'system.notify' | 'providers.models' | 'runner.check'
> {
  const { pickFolder, notify } = deps
  return {
    'folders.browse': (p) => listFolders(p.path),
    'folders.pick': async (p) => {
      if (!pickFolder)
        throw new ApiError(
          'unsupported',
          'There is no native folder dialog here (only in the desktop app): use folders.browse',
        )
      return { path: await pickFolder(p.title) }
    },
    'system.info': () => systemInfo(deps),
    'runner.check': (p) => checkRunner(p.runner, p.agent, { controlDir: sshControlDir(deps.dataDir) }),
    'providers.models': (p) => providerModels(p.baseURL, p.apiKey),
    'system.notify': (p) => {
      if (!notify)
        throw new ApiError(
          'unsupported',
          'There are no system notifications here (only in the desktop app): the page uses the Notification API',
        )
      return { shown: notify(p.title, p.body) }
    },
  }
}
