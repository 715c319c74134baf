/** Whether an approval rule covers a call: command prefixes (allow and deny read differently), path globs, the tree. */
import path from 'node:path'
import { wordsStartWith } from './command-words'
import type { PolicyCall, PolicyRule } from './policy-types'
import { prefixMatch, type CommandsRun, commandsRun } from './shell-commands'

/**
 * An allow prefix: the command is the prefix plus plain arguments, no chaining, redirection or substitution; a
 * shell's `-c` string is the command inside (`npm test` covers `bash -lc "npm test"`), see command-words.ts.
 */
export function allowPrefixMatches(command: string, prefix: string): boolean {
  return wordsStartWith(command, prefix)
}

/**
 * A deny prefix: any command the line runs starts with it, as the shell reads the line (see shell-commands.ts):
 * `{ touch M; }`, `env touch M`, `sh -c 'touch M'`, `echo $(git push)`, `git -C . push`… Only a certain match.
 */
export function denyPrefixMatches(command: string, prefix: string): boolean {
  return prefixMatch(commandsRun(command), prefix) === 'yes'
}

/** `*` any characters but `/`, `**` any (also `/`), `?` one character; matched against the whole relative path. */
export function globToRegExp(glob: string): RegExp {
  let re = ''
  for (let i = 0; i < glob.length; i++) {
    const c = glob.charAt(i)
    if (c === '*' && glob[i + 1] === '*') {
      i++
      if (glob[i + 1] === '/') {
        i++
        re += '(?:.*/)?'
      } else re += '.*'
    } else if (c === '*') re += '[^/]*'
    else if (c === '?') re += '[^/]'
    else re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&')
  }
  return new RegExp(`^${re}$`)
}

/** A path relative to the tree, or null when it is outside it (absolute elsewhere, or `..` out of it). */
export function insideTree(root: string | undefined, p: string): string | null {
  const abs = path.resolve(root ?? '/', p)
  const rel = path.relative(root ?? '/', abs)
  if (!root || rel.startsWith('..') || path.isAbsolute(rel)) return null
  return rel.split(path.sep).join('/')
}

/**
 * Whether a rule covers a call: `yes`, `no`, or for a deny prefix `maybe` (the command may run what it names, as
 * far as Concord can read it). `run` reads the call's command once, for every deny rule.
 */
export function ruleMatches(rule: PolicyRule, call: PolicyCall, run: () => CommandsRun): 'yes' | 'maybe' | 'no' {
  if (rule.tool && rule.tool !== '*' && rule.tool !== call.tool) return 'no'
  let verdict: 'yes' | 'maybe' = 'yes'
  if (rule.commandPrefix) {
    if (call.command === undefined) return 'no'
    if (rule.effect === 'deny') {
      const m = prefixMatch(run(), rule.commandPrefix)
      if (m === 'no' && !run().unsure) return 'no'
      if (m !== 'yes') verdict = 'maybe'
    } else if (!allowPrefixMatches(call.command, rule.commandPrefix)) return 'no'
  }
  if (rule.pathGlob) {
    if (!call.paths?.length) return 'no'
    const re = globToRegExp(rule.pathGlob)
    const rel = call.paths.map((p) => insideTree(call.root, p) ?? path.resolve(call.root ?? '/', p))
    // Deny: any path it names; allow: every path.
    if (!(rule.effect === 'deny' ? rel.some((p) => re.test(p)) : rel.every((p) => re.test(p)))) return 'no'
  }
  return verdict
}
