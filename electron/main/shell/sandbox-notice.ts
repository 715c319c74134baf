import { sandboxStatus } from '../platform/sandbox/status'

/**
 * Says once, when Concord starts, that commands and agents will run without the OS sandbox and why (the reason names
 * what to install). `concord serve` writes it on stderr, the desktop app in its log and on stderr.
 */
export async function noSandboxNotice(): Promise<string | null> {
  const st = await sandboxStatus()
  return st.available
    ? null
    : `concord: commands and agents will run without a sandbox: ${st.reason ?? 'none is available'}`
}
