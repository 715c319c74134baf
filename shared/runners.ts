/**
 * Where a member runs: this machine, an SSH host (a name from the user's ssh config, or user@host), or a container of
 * an image (Docker or Podman). The same value is checked at the API boundary and by the code that connects.
 */
import { z } from 'zod'

/** The longest SSH host accepted (DNS names are at most 253; an alias or a user@ may add a little). */
export const MAX_SSH_HOST_LENGTH = 255

/**
 * An SSH host: letters, digits and the characters of user@host, IPv6 [addresses] and :ports, never starting with '-'
 * (ssh would read it as an option: `-oProxyCommand=...` runs a program on this machine).
 */
export const SSH_HOST_PATTERN = /^(?!-)[A-Za-z0-9_.@:[\]-]+$/

export const SshHost = z
  .string()
  .min(1)
  .max(MAX_SSH_HOST_LENGTH)
  .regex(
    SSH_HOST_PATTERN,
    'a name from your ssh config or user@host, of letters, digits and . _ - @ : [ ] (not starting with -)',
  )

export const Runner = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('local') }),
  z.strictObject({ kind: z.literal('ssh'), host: SshHost }),
  z.strictObject({ kind: z.literal('container'), image: z.string().trim().min(1).max(500) }),
])

export type Runner = { kind: 'local' } | { kind: 'ssh'; host: string } | { kind: 'container'; image: string }

/** What runner.check found: the runner's git and, when asked about one, where the agent's command is there. */
export interface RunnerCheck {
  ok: true
  /** git's version there ("2.39.5"). */
  git: string
  /** The agent command's path there, when one was asked about. */
  agent?: string
}
