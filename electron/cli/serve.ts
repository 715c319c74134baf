import { existsSync } from 'node:fs'
import { createCore } from '../main/core'
import { resolveDataDir } from '../main/platform/data-dir'
import { startBridge } from '../main/transport/bridge'
import { stringFlag, type ParsedArgs } from './args'
import { UsageError } from './errors'
import { runtimePaths } from '../main/platform/paths'
import { noSandboxNotice } from '../main/shell/sandbox-notice'
import { keptToken, MIN_TOKEN_LENGTH } from './serve-token'

/** `concord serve`: the core under plain Node, the renderer and API on 127.0.0.1. */
export async function serve(args: ParsedArgs): Promise<void> {
  const portText = stringFlag(args, 'port') ?? '5183'
  const port = Number(portText)
  if (!/^\d+$/.test(portText) || port > 65535)
    throw new UsageError(`--port: '${portText}' is not a port number (0 to 65535; 0 picks a free one)`)
  const given = stringFlag(args, 'token')
  // The token is all that stands between any local process (or web page) and the API.
  if (given !== undefined && given.length < MIN_TOKEN_LENGTH) {
    throw new UsageError(
      `--token must be at least ${MIN_TOKEN_LENGTH} characters long (it guards the API); leave it out to use the one kept in the data folder`,
    )
  }
  const dataDir = resolveDataDir(stringFlag(args, 'data-dir'))
  const { rendererDir: staticDir, rendererIndex } = runtimePaths()
  const core = createCore({ dataDir })
  let bridge
  let kept: ReturnType<typeof keptToken> | null = null
  try {
    // Made once and kept (after the core holds the data folder's lock): a restart keeps the open tab's address working.
    if (given === undefined) kept = keptToken(dataDir)
    bridge = await startBridge({ core, port, token: given ?? kept!.token, staticDir })
  } catch (err) {
    await core.close()
    if ((err as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw Object.assign(
        new Error(`port ${port} is in use on 127.0.0.1; choose another with --port (0 picks a free one)`),
        { code: 'io_error' },
      )
    }
    throw err
  }
  console.log(`Concord serving on ${bridge.url}`)
  void noSandboxNotice().then((line) => line && console.error(line))
  console.log(`data folder: ${dataDir}${existsSync(rendererIndex) ? '' : '  (UI not built: npm run build)'}`)
  if (kept?.made) console.log(`token: made and kept in ${kept.file} (the same address works after a restart)`)
  const stop = async () => {
    await bridge.close()
    await core.close()
    process.exit(0)
  }
  process.once('SIGINT', () => void stop())
  process.once('SIGTERM', () => void stop())
}
