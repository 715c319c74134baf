import { execFileSync } from 'node:child_process'
import { closeSync, constants, createReadStream, existsSync, openSync, readdirSync, type ReadStream } from 'node:fs'
import { mkdir, mkdtemp, readFile, realpath, rm, stat, symlink, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { assertSafeRef, gitBranch, gitHead, isGitRepo } from '../../electron/main/platform/git'
import { repoTools } from '../../electron/main/runtime/tools/repo-tools'
import { parseArgs } from '../../electron/main/runtime/tools/tool-helpers'
import { ToolError } from '../../electron/main/platform/tool-error'
import type { ToolContext, ToolDefinition } from '../../electron/main/runtime/tools/types'
import { resolveInWorkspace } from '../../electron/main/runtime/tools/workspace-path'

const tools = new Map(repoTools().map((t) => [t.name, t]))

function tool(name: string): ToolDefinition<any> {
  const t = tools.get(name)
  if (!t) throw new Error(`no tool ${name}`)
  return t
}

let base: string // temp parent holding the repo and an "outside" folder
let root: string // the workspace repository
let outside: string // a folder outside the workspace with a secret

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: cleanGitEnv() }).trim()
}

function cleanGitEnv(): NodeJS.ProcessEnv {
  const env = { ...process.env }
  for (const k of Object.keys(env)) if (k.startsWith('GIT_')) delete env[k]
  return env
}

async function initRepo(dir: string, withCommit: boolean): Promise<void> {
  await mkdir(dir, { recursive: true })
  git(dir, 'init', '-q')
  git(dir, 'symbolic-ref', 'HEAD', 'refs/heads/main')
  git(dir, 'config', 'user.name', 'Test User')
  git(dir, 'config', 'user.email', 'test@example.com')
  git(dir, 'config', 'commit.gpgsign', 'false')
  git(dir, 'config', 'core.hooksPath', '/dev/null')
  if (withCommit) {
    await writeFile(path.join(dir, 'README.md'), '# Demo\n\nHello world\n')
    await mkdir(path.join(dir, 'src'), { recursive: true })
    await writeFile(path.join(dir, 'src', 'main.ts'), 'export const greeting = "hello"\nconsole.log(greeting)\n')
    git(dir, 'add', '-A')
    git(dir, 'commit', '-q', '-m', 'initial')
  }
}

function ctx(signal: AbortSignal = new AbortController().signal): ToolContext {
  return { workspaceRoot: root, signal }
}

/** Parses the raw arguments as the agent loop does (the one parse), then runs the tool. */
async function run(name: string, args: unknown, c: ToolContext = ctx()): Promise<string> {
  const t = tool(name)
  return t.run(parseArgs(t.args, args, name), c)
}

async function expectToolError(p: Promise<unknown>, code: string): Promise<ToolError> {
  try {
    await p
  } catch (err) {
    expect(err).toBeInstanceOf(ToolError)
    expect((err as ToolError).code).toBe(code)
    return err as ToolError
  }
  throw new Error(`expected ToolError ${code}, but the call succeeded`)
}

const fifos: { file: string; reader: ReadStream }[] = []

/**
 * A FIFO in the workspace for a command to hold open (`exec 3>name`): `opened` resolves when a command opened it,
 * `closed` at end of file, once every process holding it — the shell and whatever it started — is gone. A test
 * waits for that event instead of polling pids, which mean nothing outside a sandbox's PID namespace.
 */
function heldOpen(name: string): { opened: Promise<void>; closed: Promise<void> } {
  const file = path.join(root, name)
  execFileSync('mkfifo', [file])
  const reader = createReadStream(file)
  fifos.push({ file, reader })
  const opened = new Promise<void>((resolve) => reader.once('open', () => resolve()))
  const closed = new Promise<void>((resolve, reject) => reader.once('end', resolve).once('error', reject))
  reader.resume()
  return { opened, closed }
}

afterEach(() => {
  // A reader still waiting for a writer holds a libuv thread: open the other end once to let it go.
  for (const { file, reader } of fifos.splice(0)) {
    if (reader.pending) {
      try {
        closeSync(openSync(file, constants.O_WRONLY | constants.O_NONBLOCK))
      } catch {
        // no reader left
      }
    }
    reader.destroy()
  }
})

beforeAll(async () => {
  base = await realpath(await mkdtemp(path.join(os.tmpdir(), 'concord-repo-tools-')))
  outside = path.join(base, 'outside')
  await mkdir(outside)
  await writeFile(path.join(outside, 'secret.txt'), 'TOP SECRET\n')
})

afterAll(async () => {
  await rm(base, { recursive: true, force: true })
})

let repoCounter = 0
beforeEach(async () => {
  root = path.join(base, `repo${++repoCounter}`)
  await initRepo(root, true)
})

describe('tool definitions', () => {
  it('exposes exactly the nine tools with approval flags and schemas', () => {
    expect([...tools.keys()].sort()).toEqual(
      [
        'edit_file',
        'git_commit',
        'git_diff',
        'git_status',
        'list_files',
        'read_file',
        'run_command',
        'search_text',
        'write_file',
      ].sort(),
    )
    const approval = Object.fromEntries(repoTools().map((t) => [t.name, t.needsApproval]))
    expect(approval).toEqual({
      read_file: false,
      list_files: false,
      search_text: false,
      write_file: true,
      edit_file: true,
      run_command: true,
      git_status: false,
      git_diff: false,
      git_commit: true,
    })
    for (const t of repoTools()) {
      expect(t.parameters.type).toBe('object')
      expect(t.description.length).toBeGreaterThan(10)
    }
    expect(tool('read_file').parameters.required).toEqual(['path'])
    expect(tool('edit_file').parameters.required).toEqual(['path', 'old', 'new'])
    expect(tool('run_command').parameters.required).toEqual(['command'])
    expect(tool('read_file').args.safeParse({ path: 'a', offset: 2, limit: 3 }).success).toBe(true)
    expect(tool('read_file').args.safeParse({ offset: 2 }).success).toBe(false)
  })

  it('rejects bad arguments with invalid_arguments', async () => {
    await expectToolError(run('read_file', {}), 'invalid_arguments')
    await expectToolError(run('read_file', { path: 'README.md', offset: 0 }), 'invalid_arguments')
    await expectToolError(run('write_file', { path: 'x.txt' }), 'invalid_arguments')
    await expectToolError(run('edit_file', { path: 'README.md', old: '', new: 'x' }), 'invalid_arguments')
    await expectToolError(run('search_text', { query: '' }), 'invalid_arguments')
    await expectToolError(run('run_command', { command: 'true', timeoutMs: 11 * 60_000 }), 'invalid_arguments')
    await expectToolError(run('run_command', { command: 42 }), 'invalid_arguments')
    await expectToolError(run('git_commit', { message: '   ' }), 'invalid_arguments')
    await expectToolError(run('git_diff', { ref: '--output=/tmp/x' }), 'invalid_arguments')
    await expectToolError(run('git_diff', { ref: '-p' }), 'invalid_arguments')
    await expectToolError(run('git_diff', { ref: 'HEAD foo' }), 'invalid_arguments')
    expect(() => assertSafeRef('-x')).toThrow(ToolError)
    expect(() => assertSafeRef('HEAD~1')).not.toThrow()
  })
})

describe('read_file', () => {
  it('returns line-numbered text', async () => {
    const out = await run('read_file', { path: 'src/main.ts' })
    expect(out).toBe('     1\texport const greeting = "hello"\n     2\tconsole.log(greeting)')
  })

  it('honours offset and limit', async () => {
    await writeFile(path.join(root, 'lines.txt'), Array.from({ length: 10 }, (_, i) => `line ${i + 1}`).join('\n'))
    const out = await run('read_file', { path: 'lines.txt', offset: 3, limit: 2 })
    expect(out).toContain('     3\tline 3\n     4\tline 4')
    expect(out).not.toContain('line 5')
    expect(out).toContain('showing lines 3-4 of 10')
    expect(out).toContain('offset=5')
    expect(await run('read_file', { path: 'lines.txt', offset: 50 })).toContain('past the end')
  })

  it('refuses binary, huge, missing files and directories', async () => {
    await writeFile(path.join(root, 'bin.dat'), Buffer.from([0x7f, 0x45, 0x00, 0x01, 0x02]))
    await expectToolError(run('read_file', { path: 'bin.dat' }), 'binary_file')
    await writeFile(path.join(root, 'huge.txt'), Buffer.alloc(2 * 1024 * 1024 + 10, 'a'))
    const err = await expectToolError(run('read_file', { path: 'huge.txt' }), 'file_too_large')
    expect(err.message).toMatch(/bytes/)
    await expectToolError(run('read_file', { path: 'nope.txt' }), 'not_found')
    await expectToolError(run('read_file', { path: 'src' }), 'not_a_file')
  })

  it('reads through a symlink that stays inside the workspace', async () => {
    await symlink('src/main.ts', path.join(root, 'inner-link.ts'))
    expect(await run('read_file', { path: 'inner-link.ts' })).toContain('greeting')
  })
})

describe('list_files', () => {
  it('lists recursively, marks directories, skips .git', async () => {
    await mkdir(path.join(root, 'node_modules', 'pkg'), { recursive: true })
    await writeFile(path.join(root, 'node_modules', 'pkg', 'index.js'), 'x')
    const out = (await run('list_files', {})).split('\n')
    expect(out).toContain('README.md')
    expect(out).toContain('src/')
    expect(out).toContain('src/main.ts')
    expect(out).toContain('node_modules/')
    expect(out).not.toContain('node_modules/pkg/')
    expect(out.some((l) => l.startsWith('.git'))).toBe(false)
    const sub = (await run('list_files', { path: 'src' })).split('\n')
    expect(sub).toEqual(['src/main.ts'])
  })

  it('caps the listing with a note', async () => {
    const many = path.join(root, 'many')
    await mkdir(many)
    await Promise.all(Array.from({ length: 1100 }, (_, i) => writeFile(path.join(many, `f${i}.txt`), '')))
    const out = (await run('list_files', { path: 'many' })).split('\n')
    expect(out.length).toBe(1001)
    expect(out[1000]).toMatch(/truncated at 1000/)
  })

  it('refuses a non-directory', async () => {
    await expectToolError(run('list_files', { path: 'README.md' }), 'not_a_directory')
  })
})

describe('search_text', () => {
  it('finds plain substrings as path:line: text, skipping .git and node_modules', async () => {
    await mkdir(path.join(root, 'node_modules'), { recursive: true })
    await writeFile(path.join(root, 'node_modules', 'dep.js'), 'greeting in dependency\n')
    await writeFile(path.join(root, 'weird.txt'), 'a (greeting) .* regex chars\n')
    const out = await run('search_text', { query: 'greeting' })
    const lines = out.split('\n')
    expect(lines).toContain('src/main.ts:1: export const greeting = "hello"')
    expect(lines).toContain('src/main.ts:2: console.log(greeting)')
    expect(lines).toContain('weird.txt:1: a (greeting) .* regex chars')
    expect(out).not.toContain('node_modules')
    expect(out).not.toContain('.git/')
    expect(await run('search_text', { query: '.*' })).toContain('weird.txt:1:')
    expect(await run('search_text', { query: 'greeting', path: 'weird.txt' })).toBe(
      'weird.txt:1: a (greeting) .* regex chars',
    )
    expect(await run('search_text', { query: 'zzz-not-there' })).toMatch(/No matches/)
  })

  it('caps matches with a note', async () => {
    await writeFile(path.join(root, 'big.txt'), 'needle\n'.repeat(300))
    const lines = (await run('search_text', { query: 'needle' })).split('\n')
    expect(lines.length).toBe(201)
    expect(lines[200]).toMatch(/truncated at 200/)
  })
})

describe('write_file and edit_file', () => {
  it('creates parent directories and round-trips content atomically', async () => {
    const out = await run('write_file', { path: 'deep/er/new.txt', content: 'héllo\nworld\n' })
    expect(out).toMatch(/^Created deep\/er\/new.txt/)
    expect(await readFile(path.join(root, 'deep/er/new.txt'), 'utf8')).toBe('héllo\nworld\n')
    expect(await run('read_file', { path: 'deep/er/new.txt' })).toBe('     1\théllo\n     2\tworld')
    expect(await run('write_file', { path: 'deep/er/new.txt', content: 'v2' })).toMatch(/^Overwrote/)
    expect(await readFile(path.join(root, 'deep/er/new.txt'), 'utf8')).toBe('v2')
    expect(readdirSync(path.join(root, 'deep/er'))).toEqual(['new.txt']) // no temp files left
  })

  it('keeps the mode of an existing file', async () => {
    const p = path.join(root, 'script.sh')
    await writeFile(p, '#!/bin/sh\necho hi\n', { mode: 0o755 })
    await run('write_file', { path: 'script.sh', content: '#!/bin/sh\necho bye\n' })
    expect((await stat(p)).mode & 0o777).toBe(0o755)
  })

  it('edits a unique occurrence literally', async () => {
    const out = await run('edit_file', { path: 'src/main.ts', old: '"hello"', new: '"$& hi $1"' })
    expect(out).toMatch(/replaced 1 occurrence/)
    expect(await readFile(path.join(root, 'src/main.ts'), 'utf8')).toBe(
      'export const greeting = "$& hi $1"\nconsole.log(greeting)\n',
    )
  })

  it('refuses missing and ambiguous edits without touching the file', async () => {
    const before = await readFile(path.join(root, 'src/main.ts'), 'utf8')
    await expectToolError(
      run('edit_file', { path: 'src/main.ts', old: 'nothing like this', new: 'x' }),
      'edit_not_found',
    )
    const err = await expectToolError(
      run('edit_file', { path: 'src/main.ts', old: 'greeting', new: 'x' }),
      'edit_ambiguous',
    )
    expect(err.message).toMatch(/2 times/)
    expect(await readFile(path.join(root, 'src/main.ts'), 'utf8')).toBe(before)
    await expectToolError(run('edit_file', { path: 'missing.ts', old: 'a', new: 'b' }), 'not_found')
  })
})

describe('run_command', () => {
  it('reports exit codes and interleaves stdout and stderr, cwd = root', async () => {
    const ok = await run('run_command', { command: 'pwd; echo out; echo err 1>&2' })
    expect(ok).toContain(root)
    expect(ok).toContain('out')
    expect(ok).toContain('err')
    // Where there is no sandbox the status line is followed by the one that says so.
    expect(ok.trimEnd()).toMatch(/\[exit code: 0\](\n\[not sandboxed: [^\n]*\])?$/)
    const fail = await run('run_command', { command: 'echo failing; exit 3' })
    expect(fail).toContain('failing')
    expect(fail).toContain('[exit code: 3]')
  })

  // In the three tests below a background child would write late-marker after 8 s. Once the FIFO it holds reports
  // end of file the child is gone, so a marker that is absent then can never appear; had the group not been
  // killed, end of file would come only after the marker was written. (In a sandbox the PID namespace kills the
  // leftovers too; with CONCORD_SANDBOX=off these tests exercise the group kill and the pipe drain alone.)
  it('kills the whole process group on timeout', async () => {
    // The timeout must fall after the shell has opened the FIFO and started its child: one that fired during the
    // sandbox's start (a second and more on a loaded machine, against 500 ms here before) killed the shell before it
    // opened the FIFO, and the wait for its end of file below never ended. So the timeout is a multiple of how long
    // a command takes to run here and now, and the child's and the shell's sleeps last that much longer.
    const started = Date.now()
    await run('run_command', { command: 'true' })
    const timeoutMs = Math.min(20_000, Math.max(1000, 5 * (Date.now() - started)))
    const s = Math.ceil(timeoutMs / 1000)
    const bg = heldOpen('bg.fifo')
    // Not killed, the command would return after 10 s more with 'finished' (and the marker written).
    const out = await run('run_command', {
      command: `exec 3>bg.fifo; (sleep ${s + 8}; touch late-marker) & sleep ${s + 10}; echo finished`,
      timeoutMs,
    })
    expect(out).toMatch(new RegExp(`^\\[timed out after ${timeoutMs} ms; process group killed\\]`))
    expect(out).not.toContain('finished')
    await bg.closed
    expect(existsSync(path.join(root, 'late-marker'))).toBe(false)
  }, 60_000)

  it('does not wait for background processes that keep the pipes open', async () => {
    const bg = heldOpen('bg.fifo')
    // The child inherits stdout and stderr; waiting for them to close would return only after it wrote its marker.
    const out = await run('run_command', {
      command: 'exec 3>bg.fifo; (sleep 8; touch late-marker) & echo done',
      timeoutMs: 10_000,
    })
    expect(out).toMatch(/^done\n\[exit code: 0\]/)
    expect(out).not.toMatch(/timed out/)
    await bg.closed
    expect(existsSync(path.join(root, 'late-marker'))).toBe(false)
  })

  it('caps output keeping head and tail', async () => {
    const out = await run('run_command', {
      command: "echo HEAD-MARKER; head -c 300000 /dev/zero | tr '\\0' 'a'; echo; echo TAIL-MARKER",
    })
    expect(out.length).toBeLessThan(70 * 1024)
    expect(out.startsWith('HEAD-MARKER')).toBe(true)
    expect(out).toContain('TAIL-MARKER')
    expect(out).toMatch(/bytes of output omitted/)
    expect(out).toContain('[exit code: 0]')
  })

  it('kills the process group when the signal aborts', async () => {
    const ac = new AbortController()
    const bg = heldOpen('bg.fifo')
    const p = run(
      'run_command',
      { command: 'exec 3>bg.fifo; (sleep 8; touch late-marker) & wait; echo finished' },
      ctx(ac.signal),
    )
    await bg.opened // the command is running
    ac.abort()
    const err = await expectToolError(p, 'aborted')
    expect(err.message).toMatch(/process group was killed/)
    expect(err.message).not.toContain('finished')
    await bg.closed
    expect(existsSync(path.join(root, 'late-marker'))).toBe(false)
  })

  it('refuses to start when already aborted', async () => {
    const ac = new AbortController()
    ac.abort()
    await expectToolError(run('run_command', { command: 'touch should-not-exist' }, ctx(ac.signal)), 'aborted')
    expect(existsSync(path.join(root, 'should-not-exist'))).toBe(false)
  })
})

describe('git tools', () => {
  it('git_status shows branch and porcelain entries', async () => {
    expect(await run('git_status', {})).toMatch(/Branch: main[\s\S]*\(working tree clean\)/)
    await writeFile(path.join(root, 'README.md'), 'changed\n')
    await writeFile(path.join(root, 'new.txt'), 'new\n')
    const out = await run('git_status', {})
    expect(out).toContain('Branch: main')
    expect(out).toContain('## main')
    expect(out).toContain(' M README.md')
    expect(out).toContain('?? new.txt')
  })

  it('git_diff shows working tree changes, and against a ref', async () => {
    expect(await run('git_diff', {})).toBe('(no differences)')
    await writeFile(path.join(root, 'README.md'), '# Demo\n\nHello there\n')
    await writeFile(path.join(root, 'untracked.txt'), 'u\n')
    const out = await run('git_diff', {})
    expect(out).toContain('diff --git a/README.md b/README.md')
    expect(out).toContain('-Hello world')
    expect(out).toContain('+Hello there')
    expect(out).toMatch(/Untracked files[\s\S]*untracked.txt/)
    git(root, 'add', 'README.md') // staged changes are still shown
    expect(await run('git_diff', {})).toContain('+Hello there')

    const first = git(root, 'rev-parse', 'HEAD')
    git(root, 'commit', '-q', '-m', 'second')
    expect(await run('git_diff', {})).not.toContain('Hello there')
    const vsRef = await run('git_diff', { ref: first })
    expect(vsRef).toContain('+Hello there')
    expect(await run('git_diff', { ref: 'HEAD~1' })).toContain('+Hello there')
    await expectToolError(run('git_diff', { ref: 'no-such-branch' }), 'git_error')
  })

  it('git_commit stages everything and returns the new SHA', async () => {
    await writeFile(path.join(root, 'added.txt'), 'added\n')
    await writeFile(path.join(root, 'README.md'), 'rewritten\n')
    const out = await run('git_commit', { message: '-leading dash message\n\nbody' })
    const sha = git(root, 'rev-parse', 'HEAD')
    expect(out).toContain(`Committed ${sha} on main`)
    expect(out.match(/[0-9a-f]{40}/)?.[0]).toBe(sha)
    expect(git(root, 'log', '-1', '--format=%s')).toBe('-leading dash message')
    expect(git(root, 'status', '--porcelain')).toBe('')
    expect(await gitHead(root)).toBe(sha)
  })

  it('git_commit reports nothing to commit', async () => {
    const err = await expectToolError(run('git_commit', { message: 'noop' }), 'nothing_to_commit')
    expect(err.message).toMatch(/nothing to commit/i)
  })

  it('works in a repository without commits', async () => {
    const fresh = path.join(base, `fresh${++repoCounter}`)
    await initRepo(fresh, false)
    expect(await gitHead(fresh)).toBeNull()
    expect(await gitBranch(fresh)).toBe('main')
    root = fresh
    await writeFile(path.join(fresh, 'a.txt'), 'a\n')
    expect(await run('git_status', {})).toContain('?? a.txt')
    expect(await run('git_diff', {})).toContain('a.txt')
    await expectToolError(run('git_commit', { message: '   ' }), 'invalid_arguments')
    const out = await run('git_commit', { message: 'first' })
    const sha = git(fresh, 'rev-parse', 'HEAD')
    expect(out).toContain(sha)
    expect(await gitHead(fresh)).toBe(sha)
  })

  it('gitHead matches rev-parse and is null outside a repository', async () => {
    expect(await gitHead(root)).toBe(git(root, 'rev-parse', 'HEAD'))
    expect(await gitHead(outside)).toBeNull()
    expect(await isGitRepo(root)).toBe(true)
    expect(await isGitRepo(outside)).toBe(false)
  })
})

describe('hostile paths', () => {
  beforeEach(async () => {
    await symlink(path.join(outside, 'secret.txt'), path.join(root, 'secret-link'))
    await symlink(outside, path.join(root, 'outdir'))
    await symlink(path.join(outside, 'not-yet.txt'), path.join(root, 'dangling'))
  })

  it('refuses escapes and absolute paths for every path-taking tool', async () => {
    for (const p of ['../x', '/etc/passwd', 'a/../../x', '..', 'src/../../outside/secret.txt', `a\0b`]) {
      await expectToolError(run('read_file', { path: p }), 'path_outside_workspace')
      await expectToolError(run('write_file', { path: p, content: 'x' }), 'path_outside_workspace')
      await expectToolError(run('edit_file', { path: p, old: 'a', new: 'b' }), 'path_outside_workspace')
      await expectToolError(run('list_files', { path: p }), 'path_outside_workspace')
      await expectToolError(run('search_text', { query: 'SECRET', path: p }), 'path_outside_workspace')
    }
    expect(existsSync(path.join(base, 'x'))).toBe(false)
  })

  it('refuses a symlink to a file outside, for reading and writing', async () => {
    await expectToolError(run('read_file', { path: 'secret-link' }), 'path_outside_workspace')
    await expectToolError(run('write_file', { path: 'secret-link', content: 'pwned' }), 'path_outside_workspace')
    await expectToolError(run('edit_file', { path: 'secret-link', old: 'TOP', new: 'pwned' }), 'path_outside_workspace')
    expect(await readFile(path.join(outside, 'secret.txt'), 'utf8')).toBe('TOP SECRET\n')
  })

  it('refuses a symlinked directory pointing outside', async () => {
    await expectToolError(run('read_file', { path: 'outdir/secret.txt' }), 'path_outside_workspace')
    await expectToolError(run('write_file', { path: 'outdir/new.txt', content: 'x' }), 'path_outside_workspace')
    await expectToolError(run('write_file', { path: 'outdir/sub/new.txt', content: 'x' }), 'path_outside_workspace')
    await expectToolError(run('list_files', { path: 'outdir' }), 'path_outside_workspace')
    await expectToolError(run('search_text', { query: 'SECRET', path: 'outdir' }), 'path_outside_workspace')
    expect(existsSync(path.join(outside, 'new.txt'))).toBe(false)
    expect(existsSync(path.join(outside, 'sub'))).toBe(false)
  })

  it('refuses writing through a dangling symlink pointing outside', async () => {
    await expectToolError(run('write_file', { path: 'dangling', content: 'x' }), 'path_outside_workspace')
    expect(existsSync(path.join(outside, 'not-yet.txt'))).toBe(false)
  })

  it('never follows symlinks when listing or searching', async () => {
    const listing = (await run('list_files', {})).split('\n')
    expect(listing).toContain('outdir@')
    expect(listing).toContain('secret-link@')
    expect(listing.some((l) => l.startsWith('outdir/'))).toBe(false)
    expect(await run('search_text', { query: 'SECRET' })).toMatch(/No matches/)
  })

  it('refuses writes into .git but allows reading it', async () => {
    const config = await readFile(path.join(root, '.git', 'config'), 'utf8')
    await expectToolError(run('write_file', { path: '.git/config', content: 'x' }), 'path_forbidden')
    await expectToolError(
      run('write_file', { path: '.git/hooks/pre-commit', content: '#!/bin/sh\n' }),
      'path_forbidden',
    )
    await expectToolError(run('write_file', { path: 'src/../.git/HEAD', content: 'x' }), 'path_forbidden')
    await expectToolError(run('write_file', { path: '.GIT/config', content: 'x' }), 'path_forbidden')
    await expectToolError(run('edit_file', { path: '.git/config', old: '[core]', new: '[x]' }), 'path_forbidden')
    expect(await readFile(path.join(root, '.git', 'config'), 'utf8')).toBe(config)
    expect(existsSync(path.join(root, '.git', 'hooks', 'pre-commit'))).toBe(false)
    expect(await run('read_file', { path: '.git/HEAD' })).toContain('refs/heads/main')
  })

  it('refuses writes into .git through a symlink', async () => {
    await symlink('.git', path.join(root, 'gitlink'))
    await expectToolError(run('write_file', { path: 'gitlink/config', content: 'x' }), 'path_forbidden')
  })

  it('resolveInWorkspace returns real paths inside the root', async () => {
    expect(await resolveInWorkspace(root, '.')).toBe(root)
    expect(await resolveInWorkspace(root, '')).toBe(root)
    expect(await resolveInWorkspace(root, 'src/./main.ts')).toBe(path.join(root, 'src', 'main.ts'))
    expect(await resolveInWorkspace(root, 'src/../README.md')).toBe(path.join(root, 'README.md'))
    expect(await resolveInWorkspace(root, 'not/yet/here.txt')).toBe(path.join(root, 'not', 'yet', 'here.txt'))
    await expectToolError(resolveInWorkspace(root, 'not/here.txt', { mustExist: true }), 'not_found')
    await expectToolError(resolveInWorkspace(root, 'outdir/x/y/z.txt'), 'path_outside_workspace')
    // The root itself reached through a symlink is fine.
    const alias = path.join(base, `alias${repoCounter}`)
    await symlink(root, alias)
    expect(await resolveInWorkspace(alias, 'README.md')).toBe(path.join(root, 'README.md'))
  })
})
