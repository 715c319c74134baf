/**
 * Where a member runs (issue 36): this machine, an SSH host, or a container. The one type, its schema and the words a
 * person is shown for it; the store keeps it as this JSON (members.runner, the workspace's defaultRunner).
 */
import { z } from 'zod'

export type Runner = { kind: 'local' } | { kind: 'ssh'; host: string } | { kind: 'container'; image: string }

export const LOCAL_RUNNER: Runner = { kind: 'local' }

/** The longest SSH host accepted (DNS names are at most 253; an alias or a user@ may add a little). */
export const MAX_SSH_HOST_LENGTH = 255

/**
 * An SSH host: letters, digits and the characters of user@host, IPv6 [addresses] and :ports, never starting with '-'
 * (ssh would read it as an option: `-oProxyCommand=...` runs a program on this machine). Checked again where ssh is
 * called (platform/ssh.ts).
 */
export const SSH_HOST_PATTERN = /^(?!-)[A-Za-z0-9_.@:[\]-]+$/

// Both end up as one argument of a command line (ssh's destination, podman's image): a leading '-' would make it an
// option of that program, and anything outside these characters has no business in a host name or an image reference.
const SshHost = z
  .string()
  .trim()
  .min(1, 'name the SSH host (a name from ~/.ssh/config, host or user@host)')
  .max(MAX_SSH_HOST_LENGTH)
  .regex(/^[^-]/, 'may not start with -')
  .regex(/^[A-Za-z0-9_.@:[\]-]+$/, 'may hold only letters, digits and _ . @ : [ ] -')

const ContainerImage = z
  .string()
  .trim()
  .min(1, 'name the container image (debian:bookworm)')
  .max(255)
  .regex(/^[^-]/, 'may not start with -')
  .regex(/^[A-Za-z0-9_.:/@-]+$/, 'may hold only letters, digits and _ . : / @ -')

export const RunnerSchema: z.ZodType<Runner> = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('local') }),
  z.strictObject({ kind: z.literal('ssh'), host: SshHost }),
  z.strictObject({ kind: z.literal('container'), image: ContainerImage }),
])

/** A runner as a person reads it: "this machine", "SSH host runner1", "container debian:bookworm". */
export function runnerText(r: Runner): string {
  switch (r.kind) {
    case 'local':
      return 'this machine'
    case 'ssh':
      return `SSH host ${r.host}`
    case 'container':
      return `container ${r.image}`
  }
}

/**
 * The runner a member's turns run on: its own, else the workspace's default. A built-in member (Concord's own loop, no
 * agent) runs on this machine whatever the default says: only external agents (ACP) run on a runner yet, and a default
 * set for the agents must not refuse every built-in member of the team. Here, not in the harness, so that the member
 * list shows where a member runs by the same rule the runtime follows.
 */
export function effectiveRunner(
  member: { runner: Runner | null; provider: { kind: string } | null },
  settings: { defaultRunner: Runner },
): Runner {
  if (member.provider?.kind !== 'acp') return LOCAL_RUNNER
  return member.runner ?? settings.defaultRunner
}

/** A runner read back from the store: what RunnerSchema accepts, else null (a value no version of Concord wrote). */
export function parseStoredRunner(json: string | null): Runner | null {
  if (json === null) return null
  try {
    return RunnerSchema.safeParse(JSON.parse(json)).data ?? null
  } catch {
    return null
  }
}

/** What runner.check found: the runner's git and, when asked about one, where the agent's command is there. */
export interface RunnerCheck {
  ok: true
  /** git's version there ("2.39.5"). */
  git: string
  /** The agent command's path there, when one was asked about. */
  agent?: string
}
