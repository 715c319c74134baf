/**
 * The programs a shell command line runs, as the shell reads it, for deny rules (issue 32): every simple command
 * anywhere in it (lists, pipelines, `{ }`, `( )`, `if`/`for`/`while`/`case` bodies, functions, `$(…)`, backticks,
 * `<(…)`, expansions inside words and redirections), each as its words with quoting removed. On top of what the
 * shell itself runs, the commands a command runs are read too: the command after `env`, `command`, `exec`,
 * `time`, `nice`, `nohup`, `timeout`, `sudo`, `xargs`… (each as the words that follow, see RUNNERS), a shell's
 * `-c` string and `eval`'s and `trap`'s strings (parsed again, recursively), `find -exec`, and git's global
 * options before its subcommand (`git -C . push` is `git push`).
 *
 * The parser is unbash (npm, pure TypeScript, synchronous, no dependencies): the policy decides synchronously,
 * in every engine, and unbash parses Bash 5.3 syntax into a typed tree with its syntax errors, which is what
 * "as the shell does" needs. A word the shell only knows when it runs (`$X`, `$(…)`, a glob, a brace) is null.
 * What Concord cannot read with confidence (a syntax error, `eval` of a variable, a shell reading its input,
 * an alias, a `-c` string that is a variable) is `unsure`, with why: a deny rule then asks, never allows. Two
 * more things make a deny prefix a maybe (prefixMatch): code handed to an interpreter (`python3 -c`, `node -e`)
 * that names its words, and, for a git subcommand, a word git does not know in that place (an alias: `git p`).
 */
import path from 'node:path'
import { forEachChild, parse, type Command, type SyntaxNode, type Word as ShellWord } from 'unbash'
import { GIT_SUBCOMMANDS } from './git-subcommands'
import { INTERPRETER_NAMES } from './program-names'

/** A word as the shell runs it: its text without quoting, or null when only the running shell knows it. */
export type Word = string | null

export interface CommandsRun {
  /** Every simple command, and every command such a command runs (see above), as its words. */
  commands: Word[][]
  /** Why Concord cannot tell every command this runs, or null when it can. */
  unsure: string | null
  /** Code handed to an interpreter (`python3 -c '…'`, `node -e '…'`, a here-document for one), as text. */
  code: string[]
  /** Words in git's subcommand place that git does not know: an alias or a program (`git p`). */
  gitOthers: string[]
}

/** Interpreters: code they are handed is not shell, but a deny rule it names (`os.system('git push')`) asks. */
const INTERPRETERS = new Set([...INTERPRETER_NAMES, 'mawk', 'nawk'])
/** Shells whose `-c` string is the command they run. */
const SHELLS = new Set(['sh', 'bash', 'dash', 'zsh', 'ksh', 'ash', 'mksh', 'fish', 'rbash'])
/**
 * Programs that run the command in their arguments: its words follow their options. For those listed here with
 * their options that take a value, the command is read exactly; the others (`sudo`, `xargs`…) are read at every
 * word that could start it (`sudo -u root touch x`: `root touch x` and `touch x`), so a deny errs toward refusing.
 */
const RUNNER_OPTIONS: Record<string, { withValue: string[]; stop?: string[]; operands?: number }> = {
  timeout: { withValue: ['-s', '--signal', '-k', '--kill-after'], operands: 1 },
  env: { withValue: ['-u', '--unset', '-C', '--chdir'] },
  command: { withValue: [], stop: ['-v', '-V'] },
  exec: { withValue: ['-a'] },
  time: { withValue: ['-f', '--format', '-o', '--output'] },
  nohup: { withValue: [] },
  builtin: { withValue: [] },
  nice: { withValue: ['-n', '--adjustment'] },
  stdbuf: { withValue: ['-i', '-o', '-e', '--input', '--output', '--error'] },
  setsid: { withValue: [] },
  ionice: { withValue: ['-c', '-n', '-p', '-P', '-u', '--class', '--classdata'] },
}
const LOOSE_RUNNERS = new Set([
  'sudo',
  'doas',
  'xargs',
  'parallel',
  'strace',
  'ltrace',
  'chroot',
  'unshare',
  'nsenter',
  'flock',
  'taskset',
  'chrt',
  'busybox',
  'firejail',
  'bwrap',
  'proot',
  'fakeroot',
  'catchsegv',
  'valgrind',
  'dbus-run-session',
  'systemd-run',
  'unbuffer',
  'torsocks',
  'proxychains',
  'proxychains4',
  'caffeinate',
])
/** Programs whose `-c` value is a command for a shell (`su -c 'x'`, `script -c 'x'`, `flock f -c 'x'`). */
const DASH_C_STRING = new Set(['su', 'script', 'flock', 'runuser'])
/** Git's options before the subcommand that take the next word as their value. */
const GIT_VALUE_OPTIONS = new Set([
  '-C',
  '-c',
  '--git-dir',
  '--work-tree',
  '--namespace',
  '--config-env',
  '--super-prefix',
  '--list-cmds',
])
/** A file that is the command's input, or another process's: what it holds is only known when it runs. */
const isInput = (file: Word | undefined): boolean =>
  typeof file === 'string' && /^\/(dev\/(stdin|fd\/|tcp\/|udp\/)|proc\/)/.test(file)

/** How deep Concord reads commands inside commands, and how many it reads, before it is not sure. */
const MAX_DEPTH = 8
const MAX_COMMANDS = 400

/** The text of a word without quoting, or null when the shell only knows it when it runs. */
function wordText(word: ShellWord | undefined): Word {
  if (!word) return null
  for (const part of word.parts ?? []) {
    if (part.type === 'DoubleQuoted' || part.type === 'LocaleString') {
      if (part.parts.some((p) => p.type !== 'Literal')) return null
    } else if (part.type !== 'Literal' && part.type !== 'SingleQuoted' && part.type !== 'AnsiCQuoted') return null
  }
  return word.value
}

class Reader {
  commands: Word[][] = []
  unsure: string | null = null
  code: string[] = []
  gitOthers: string[] = []

  doubt(why: string): void {
    this.unsure ??= why
  }

  /** Reads a command line, at `depth` commands inside the one Concord was given. */
  script(source: string, depth: number): void {
    if (depth > MAX_DEPTH) return this.doubt('it nests commands in commands too deeply to read')
    let ast: SyntaxNode
    try {
      ast = parse(source)
    } catch (e) {
      return this.doubt(`the shell parser failed on it (${e instanceof Error ? e.message : String(e)})`)
    }
    const visit = (node: SyntaxNode): void => {
      if (node.type === 'Script' && 'errors' in node && node.errors?.length)
        this.doubt(`it is not valid shell: ${node.errors[0]!.message}`)
      if (node.type === 'Command') this.simple(node, depth)
      forEachChild(node, visit)
    }
    visit(ast)
  }

  /** One simple command the shell runs. */
  simple(node: Command, depth: number): void {
    if (!node.name) return
    const words = [wordText(node.name), ...node.args.filter((a) => a.type === 'Word').map((w) => wordText(w))]
    this.run(words, depth)
    if (words[0] && INTERPRETERS.has(path.posix.basename(words[0])))
      for (const r of node.redirects)
        if (r.type === 'HereDoc') this.code.push(r.body.text)
        else if (r.type === 'HereString' && r.target) this.code.push(r.target.text)
  }

  /** A command as words: recorded, and the commands it runs read in turn. */
  run(words: Word[], depth: number): void {
    if (!words.length) return
    if (this.commands.length >= MAX_COMMANDS) return this.doubt('it runs too many commands to read')
    if (depth > MAX_DEPTH) return this.doubt('it nests commands in commands too deeply to read')
    this.commands.push(words)
    const program = words[0]
    if (program === null || program === undefined) return this.doubt('the program it runs is only known when it runs')
    const name = path.posix.basename(program)
    const rest = words.slice(1)
    if (SHELLS.has(name)) return this.shell(rest, depth)
    if (INTERPRETERS.has(name)) return void this.code.push(rest.filter((w) => w !== null).join(' '))
    if (name === 'git') return this.git(rest)
    // `/usr/lib/git-core/git-push` is `git push`.
    if (name.startsWith('git-') && GIT_SUBCOMMANDS.has(name.slice(4)))
      return this.run(['git', name.slice(4), ...rest], depth)
    if ((name === 'source' || name === '.') && (rest[0] === null || isInput(rest[0])))
      return this.doubt('it runs commands it reads from its input')
    if (name === 'eval') return this.text(rest, depth, 'eval runs a string that is only known when it runs')
    if (name === 'trap') {
      if (rest[0] === null) return this.doubt('trap runs a string that is only known when it runs')
      if (rest[0] !== undefined && !rest[0].startsWith('-')) this.script(rest[0], depth + 1)
      return
    }
    if (name === 'alias' && rest.length) return this.doubt('an alias can give a command another name')
    if (name === 'watch')
      return this.text(
        this.afterOptions(rest, ['-n', '--interval', '-d']),
        depth,
        'watch runs a string that is only known when it runs',
      )
    if (name === 'find') return this.findExec(rest, depth)
    if (DASH_C_STRING.has(name)) {
      const c = rest.findIndex((w) => w === '-c' || w === '--command')
      if (c >= 0) {
        const s = rest[c + 1]
        if (s === null) this.doubt(`${name} -c runs a string that is only known when it runs`)
        else if (s !== undefined) this.script(s, depth + 1)
      }
    }
    const exact = RUNNER_OPTIONS[name]
    if (exact) {
      const inner = this.afterOptions(rest, exact.withValue, name === 'env')
      // Only the runner's own options count (`command -v git`, not `command git push -v`).
      const own = rest.slice(0, rest.length - inner.length)
      if (exact.stop?.some((o) => own.includes(o))) return
      if (name === 'env' && own.some((w) => /^(-[a-zA-Z0-9]*S|--split-string)/.test(w ?? '')))
        return this.doubt('env -S splits a string into a command')
      // `timeout 5 cmd`: the duration comes before the command.
      return this.run(inner.slice(exact.operands ?? 0), depth + 1)
    }
    if (LOOSE_RUNNERS.has(name) || DASH_C_STRING.has(name))
      rest.forEach((w, i) => {
        if (w === null || !w.startsWith('-')) this.run(rest.slice(i), depth + 1)
      })
  }

  /** The words after a runner's options (and, for env, its `NAME=value` assignments). */
  afterOptions(words: Word[], withValue: string[], assignments = false): Word[] {
    let i = 0
    while (i < words.length) {
      const w = words[i] as Word
      if (w === null) break
      if (w === '--') return words.slice(i + 1)
      if (assignments && /^[A-Za-z_][A-Za-z0-9_]*=/.test(w)) i++
      else if (withValue.includes(w)) i += 2
      else if (w.startsWith('-') && w.length > 1) i++
      else break
    }
    return words.slice(i)
  }

  /** `bash -lc 'x'`: the string is read as a command line; a shell reading its input is not sure. */
  shell(args: Word[], depth: number): void {
    let c = false
    let stdin = false
    let i = 0
    for (; i < args.length; i++) {
      const a = args[i] as Word
      if (a === null) return this.doubt("a shell's options are only known when it runs")
      if (a === '--' || a === '-') {
        i++
        break
      }
      if (/^--(rcfile|init-file)$/.test(a)) i++
      else if (a.startsWith('--')) continue
      else if (/^[-+][a-zA-Z]+$/.test(a)) {
        if (a.startsWith('-') && a.includes('c')) c = true
        if (a.startsWith('-') && a.includes('s')) stdin = true
        // `-o pipefail`, `+O extglob`: the option's value is the next word.
        if (/[oO]/.test(a)) i++
      } else break
    }
    const operand = args[i]
    if (c) {
      if (operand === null) return this.doubt("a shell's -c string is only known when it runs")
      if (operand !== undefined) this.script(operand, depth + 1)
      return
    }
    if (stdin || operand === undefined || isInput(operand)) this.doubt('a shell that reads its commands from its input')
  }

  /** `eval a b` runs its words joined by spaces; `watch x y` runs them through a shell. */
  text(words: Word[], depth: number, dynamic: string): void {
    if (!words.length) return
    if (words.some((w) => w === null)) return this.doubt(dynamic)
    this.script(words.join(' '), depth + 1)
  }

  /** `find … -exec cmd {} ;`: each command it runs. */
  findExec(args: Word[], depth: number): void {
    for (let i = 0; i < args.length; i++) {
      if (!['-exec', '-execdir', '-ok', '-okdir'].includes(args[i] ?? '')) continue
      let end = i + 1
      while (end < args.length && args[end] !== ';' && args[end] !== '+') end++
      this.run(args.slice(i + 1, end), depth + 1)
      i = end
    }
  }

  /** `git -C . -c x=y push`: also read as `git push`. An alias set on the command line is not sure. */
  git(args: Word[]): void {
    let i = 0
    while (i < args.length) {
      const a = args[i] as Word
      if (a === null) return this.doubt("git's options are only known when it runs")
      if (!a.startsWith('-')) break
      const value = GIT_VALUE_OPTIONS.has(a) ? args[i + 1] : a.includes('=') ? a.slice(a.indexOf('=') + 1) : undefined
      if ((a === '-c' || a.startsWith('--config-env')) && (value === null || /^alias\./i.test(value ?? '')))
        return this.doubt('it gives git an alias on the command line')
      i += GIT_VALUE_OPTIONS.has(a) ? 2 : 1
    }
    const sub = args[i]
    if (sub && !GIT_SUBCOMMANDS.has(sub)) this.gitOthers.push(sub)
    if (i > 0 && i < args.length) {
      if (this.commands.length >= MAX_COMMANDS) return this.doubt('it runs too many commands to read')
      this.commands.push(['git', ...args.slice(i)])
    }
  }
}

/** Every command a command line runs, as far as Concord can read it, and whether it is sure. */
export function commandsRun(command: string): CommandsRun {
  const reader = new Reader()
  reader.script(command, 0)
  return { commands: reader.commands, unsure: reader.unsure, code: reader.code, gitOthers: reader.gitOthers }
}

/**
 * Whether a deny prefix (`git push`, `touch`) matches one of the commands: `yes` when a command starts with its
 * words (the program by its name, whatever its path), `maybe` when one might, as far as the words only the shell
 * knows go (`git $SUB`, `$X push`) or when code handed to an interpreter names its words in order, else `no`.
 */
export function prefixMatch(run: CommandsRun, prefix: string): 'yes' | 'maybe' | 'no' {
  const want = prefix.trim().split(/\s+/).filter(Boolean)
  if (!want.length) return 'no'
  want[0] = path.posix.basename(want[0]!)
  let maybe = false
  for (const words of run.commands) {
    // Compared word by word until one differs; a word only the shell knows may be any words, or none.
    let verdict: 'yes' | 'maybe' | 'no' = 'yes'
    for (let i = 0; i < want.length; i++) {
      const w = words[i]
      if (w === undefined) verdict = 'no'
      else if (w === null) verdict = 'maybe'
      else if ((i === 0 ? path.posix.basename(w) : w) !== want[i]) verdict = 'no'
      if (verdict !== 'yes') break
    }
    if (verdict === 'yes') return 'yes'
    if (verdict === 'maybe') maybe = true
  }
  if (maybe || run.code.some((c) => mentions(c, want))) return 'maybe'
  return want[0] === 'git' && want.length > 1 && run.gitOthers.length ? 'maybe' : 'no'
}

/** Code names the words in order, each a whole token (`'git', 'push'` and `git push` both name `git push`). */
function mentions(code: string, words: string[]): boolean {
  const token = (w: string) => `(?<![\\w.-])${w.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w.-])`
  return new RegExp(words.map(token).join('[\\s\\S]*?')).test(code)
}

/** Why a deny prefix may match (prefixMatch answered `maybe`), in words for the approval card. */
export function maybeWhy(run: CommandsRun, prefix: string): string {
  if (run.unsure) return run.unsure
  const want = prefix.trim().split(/\s+/).filter(Boolean)
  if (want.length) want[0] = path.posix.basename(want[0]!)
  if (run.code.some((c) => mentions(c, want))) return 'it hands an interpreter code that names it'
  if (want[0] === 'git' && run.gitOthers.length)
    return `git ${run.gitOthers[0]} is not a command git knows: an alias or a program, which may run anything`
  return 'a word it compares is only known when the command runs'
}
