/**
 * `${VAR}` and `${VAR:-default}` in a server of the repository's `.mcp.json` (its command, arguments and variables),
 * expanded as Claude Code expands them: VAR's value where it is set (even empty), else the default, else the server
 * cannot run. The values come from the member's environment as Concord builds it (a built-in member's command
 * environment, an agent's own environment), never from Concord's process: and a name that looks like a secret
 * (isSecretEnvName: the agent's key variable, CONCORD_*, *_TOKEN, …) is never expanded, default or not, so a
 * repository cannot route a key Concord holds into a server of its choosing.
 */
import { isSecretEnvName } from '../../platform/command-env'

/** The text expanded, or the names that kept it from being: unset without a default, or secret-looking. */
export type Expanded = { text: string } | { missing: string[]; secret: string[] }

const REFERENCE = /\$\{([^}]+)\}/g
const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

export function expandVars(text: string, vars: Readonly<Record<string, string>>): Expanded {
  const missing: string[] = []
  const secret: string[] = []
  const out = text.replace(REFERENCE, (whole, inner: string) => {
    const split = inner.indexOf(':-')
    const name = split < 0 ? inner : inner.slice(0, split)
    const fallback = split < 0 ? undefined : inner.slice(split + 2)
    if (NAME.test(name) && isSecretEnvName(name)) {
      secret.push(name)
      return whole
    }
    const value = NAME.test(name) && Object.hasOwn(vars, name) ? vars[name] : undefined
    if (value !== undefined) return value
    if (fallback !== undefined) return fallback
    missing.push(name)
    return whole
  })
  return missing.length || secret.length ? { missing, secret } : { text: out }
}
