/**
 * The words of a shell command, where Concord can tell them with confidence, for "Always allow" (issue 32). Only a
 * single simple command of plain words is taken apart: words unquoted, in single quotes, or in double quotes with
 * nothing the shell would expand. Anything else (a chain, a pipe, a redirection, a substitution, a variable, a glob,
 * an escape, an assignment) is not, and no rule is offered for it.
 *
 * A shell's `-c` string (`bash -lc "npm test"`, as every Codex command arrives) is the command inside, taken apart
 * the same way. A program that runs code or other programs it is handed (`env`, `node -e`, `python3 -c`, `sudo`,
 * `xargs`, `find`…) is never a rule's prefix: allowing it would allow anything (`env PATH=… npm test` included).
 */
import path from 'node:path'
import { INTERPRETER_NAMES } from './program-names'

/** Shells whose `-c` string is the command to read. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'fish'])
/** Interpreters: a rule may name the script they run (`node build.js`), never the interpreter with code or flags. */
const INTERPRETERS = new Set(INTERPRETER_NAMES)
/** Programs that run the command or code they are handed: never a prefix, whatever follows. */
const RUNNERS = new Set([
  'env',
  'command',
  'exec',
  'eval',
  'source',
  '.',
  'builtin',
  'time',
  'nohup',
  'nice',
  'ionice',
  'timeout',
  'sudo',
  'doas',
  'su',
  'xargs',
  'parallel',
  'find',
  'watch',
  'strace',
  'ltrace',
  'flock',
  'chroot',
  'unshare',
  'setsid',
  'stdbuf',
  'script',
  'busybox',
  'trap',
])

/** Launchers of packages: a rule names the package (`npx vitest`), never the launcher alone. */
const LAUNCHERS = new Set(['npx', 'bunx', 'pnpx', 'uvx', 'pipx'])
/** Characters the shell treats specially outside quotes: their presence means "not with confidence". */
const SPECIAL = /[;&|<>()$`\\*?[\]{}~!#='"\n\r\t]/
/** Inside double quotes, what the shell still expands or escapes. */
const DQ_SPECIAL = /[$`\\!]/

/** The words of one simple command of plain words, unquoted; null when it is anything else. */
function plainWords(command: string): string[] | null {
  const words: string[] = []
  let i = 0
  const s = command
  while (i < s.length) {
    while (s[i] === ' ') i++
    if (i >= s.length) break
    let word = ''
    let quoted = false
    while (i < s.length && s[i] !== ' ') {
      const c = s[i]!
      if (c === "'" || c === '"') {
        const end = s.indexOf(c, i + 1)
        if (end < 0) return null
        const inner = s.slice(i + 1, end)
        if (c === '"' && DQ_SPECIAL.test(inner)) return null
        word += inner
        quoted = true
        i = end + 1
      } else if (SPECIAL.test(c)) {
        // `=` is plain inside an argument (`--out=x`), not in the program's place (an assignment).
        if (c === '=' && words.length > 0) {
          word += c
          i++
        } else return null
      } else {
        word += c
        i++
      }
    }
    if (!word && !quoted) return null
    words.push(word)
  }
  return words.length ? words : null
}

/** The command a call really runs, as words: a shell's `-c` string unwrapped, or null when Concord cannot tell. */
function innerWords(command: string, depth = 0): string[] | null {
  if (depth > 4) return null
  const words = plainWords(command.trim())
  if (!words) return null
  const program = path.posix.basename(words[0]!)
  if (!SHELLS.has(program)) return words
  // `bash -c 'x'`, `bash -lc 'x'`, `bash -l -c 'x'`: short options only, one of them `c`, then the string, alone.
  let i = 1
  let c = false
  while (i < words.length && /^-[a-z]+$/i.test(words[i]!)) {
    if (words[i]!.includes('c')) c = true
    i++
  }
  if (!c || i !== words.length - 1) return null
  return innerWords(words[i]!, depth + 1)
}

/**
 * The prefix "Always allow" offers for a command: its program and subcommand (`npm test`, `git log`), else its
 * program (`ls`); a script for an interpreter (`node build.js`). A string saying why when there is none.
 */
export function suggestedPrefix(command: string): { prefix: string } | { none: string } {
  const words = innerWords(command)
  if (!words) return { none: 'Concord cannot take this command apart with confidence, so it offers no rule for it' }
  const program = words[0]!
  const name = path.posix.basename(program)
  const second = words[1] ?? ''
  if (SHELLS.has(name) || RUNNERS.has(name))
    return { none: `${name} runs whatever it is handed, so Concord offers no rule for it` }
  const sub = /^[a-z][\w:.-]*$/i.test(second)
  // `npx -y anything`: a launcher without its package would allow every package.
  if (LAUNCHERS.has(name) && !sub)
    return { none: `${name} runs the package it is handed, so Concord offers no rule for it` }
  if (INTERPRETERS.has(name)) {
    // `node build.js`, `python3 manage.py`: the script; `node -e …`, `python3 -c …`, `python3 -m x`: no rule.
    return sub && /[./]/.test(second)
      ? { prefix: `${program} ${second}` }
      : { none: `${name} runs the code it is handed, so Concord offers no rule for it` }
  }
  return { prefix: sub ? `${program} ${second}` : program }
}

/** A command given as its arguments (an agent's `["bash","-lc","npm test"]`), as one shell string that means it. */
export function shellJoin(args: readonly string[]): string {
  return args.map((a) => (/^[\w@%+:,./=-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ')
}

/** An allow prefix covers the command: the command it runs is the prefix's words, then plain arguments. */
export function wordsStartWith(command: string, prefix: string): boolean {
  const words = innerWords(command)
  const want = plainWords(prefix.trim()) ?? prefix.trim().split(/\s+/)
  return !!words && want.length > 0 && want.length <= words.length && want.every((w, i) => words[i] === w)
}
