/**
 * Who commits: the identity git resolves in the user's checkout (its own config, the user's ~/.gitconfig and what it
 * includes, `includeIf "gitdir:~/work/"` too). A task's tree is a clone, and a clone's config has none of the
 * checkout's, so the identity is carried into each tree's own config (made, and checked again before each of its
 * assignee's turns): an agent committing by itself there commits as the user. Concord's own commits in the checkout
 * (a merge, the first commit) take it explicitly.
 *
 * Resolving it runs no program a repository's config names (runOwnGit's overrides; `git var` and `git config` start
 * none), and nothing of the tree's config is followed: it is read with --local (no includes) and only written.
 */
import os from 'node:os'
import { commandEnv } from '../platform/command-env'
import { runOwnGit } from '../platform/own-git'
import { runTreeGit } from '../platform/tree-git'
import { keptOwnConfig, ownConfigKey } from '../platform/own-config-cache'

export interface GitPerson {
  name: string
  email: string
}

export interface GitIdentity {
  author: GitPerson
  committer: GitPerson
}

/** `git var GIT_AUTHOR_IDENT`: "Name <email> 1712345678 +0200". */
const IDENT = /^(.*) <([^<>\n]*)> \d+ [+-]\d{4}$/

/**
 * HOME as the user's own for the read: git expands `~` in includeIf and include.path with it, and Concord's git
 * otherwise runs with the scratch home (command-env.ts), where `gitdir:~/work/` would name nothing.
 */
function userHomeEnv(): Record<string, string> {
  const env: Record<string, string> = { HOME: os.homedir() }
  if (process.env.XDG_CONFIG_HOME) env.XDG_CONFIG_HOME = process.env.XDG_CONFIG_HOME
  return env
}

async function person(root: string, variable: 'GIT_AUTHOR_IDENT' | 'GIT_COMMITTER_IDENT'): Promise<GitPerson | null> {
  const r = await runOwnGit(root, ['var', variable], { allowFailure: true, env: userHomeEnv() })
  const m = r.code === 0 ? IDENT.exec(r.stdout.trim()) : null
  return m ? { name: m[1]!, email: m[2]! } : null
}

/**
 * The identity git resolves in the checkout at `root`, or null when git knows none there ("Author identity unknown").
 * Kept while the config files git read it from are unchanged (own-config-cache.ts's key) and include no other file:
 * a merge asks it, and each ask is two git processes.
 */
export async function resolveIdentity(root: string): Promise<GitIdentity | null> {
  const key = await ownConfigKey(root, { ...commandEnv(undefined), ...userHomeEnv() })
  const k = key === null ? null : `${root}\0${key}`
  const known = k === null ? undefined : identities.get(k)
  if (known) return known
  // Both asked at once: each is a git process start, and a merge waits on them.
  const [author, committer] = await Promise.all([person(root, 'GIT_AUTHOR_IDENT'), person(root, 'GIT_COMMITTER_IDENT')])
  if (!author) return null
  const id = { author, committer: committer ?? author }
  // runOwnGit kept its config read under the same key only when the config includes no other file.
  if (k !== null && keptOwnConfig(root, key) !== null) {
    if (identities.size >= IDENTITIES_MAX) identities.clear()
    identities.set(k, id)
  }
  return id
}

const identities = new Map<string, GitIdentity>()
const IDENTITIES_MAX = 100

/** The environment that makes one of Concord's own git commits record this identity. */
export function identityEnv(id: GitIdentity): Record<string, string> {
  return {
    GIT_AUTHOR_NAME: id.author.name,
    GIT_AUTHOR_EMAIL: id.author.email,
    GIT_COMMITTER_NAME: id.committer.name,
    GIT_COMMITTER_EMAIL: id.committer.email,
  }
}

const same = (a: GitPerson, b: GitPerson): boolean => a.name === b.name && a.email === b.email

/** The keys of a tree's own config that name who commits: user.*, and author.* / committer.*, which win over it. */
const IDENTITY_KEYS = /^(user|author|committer)\.(name|email)$/

/**
 * The checkout's identity written into the tree's own config (user.name, user.email; committer.* when the committer
 * differs), and any other identity key there (one an agent set) removed. Nothing is written when the tree has it
 * already; nothing is changed when the checkout has no identity. True when the tree's config was changed.
 */
export async function carryIdentity(root: string, tree: string): Promise<boolean> {
  const id = await resolveIdentity(root)
  if (!id) return false
  const want = new Map<string, string>([
    ['user.name', id.author.name],
    ['user.email', id.author.email],
  ])
  if (!same(id.author, id.committer)) {
    want.set('committer.name', id.committer.name)
    want.set('committer.email', id.committer.email)
  }
  const listed = await runTreeGit(
    tree,
    ['config', '--local', '--no-includes', '-z', '--get-regexp', '^(user|author|committer)\\.'],
    {
      allowFailure: true,
    },
  )
  const have = new Map<string, string[]>()
  for (const entry of listed.stdout.split('\0')) {
    const nl = entry.indexOf('\n')
    if (nl < 0) continue
    const key = entry.slice(0, nl).toLowerCase()
    if (IDENTITY_KEYS.test(key)) have.set(key, [...(have.get(key) ?? []), entry.slice(nl + 1)])
  }
  let changed = false
  const write = async (args: string[]): Promise<void> => {
    await runTreeGit(tree, ['config', '--local', ...args], { write: true })
    changed = true
  }
  for (const key of have.keys()) if (!want.has(key)) await write(['--unset-all', key])
  for (const [key, value] of want) {
    const values = have.get(key)
    if (values?.length === 1 && values[0] === value) continue
    if ((values?.length ?? 0) > 1) await write(['--unset-all', key])
    await write([key, value])
  }
  return changed
}
