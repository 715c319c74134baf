/** The command line as a person runs it: the real built CLI (bin/concord.js → out/cli/concord.js) as a child process. */
import { execFile } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { projectRoot } from '../e2e/support'

const bin = join(projectRoot, 'bin', 'concord.js')
const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as { version: string; dependencies: Record<string, string> }
const commands = ['serve', 'export', 'import', 'mcp']
/** Every failure, whatever the command: one line with the prefix and a stable code. */
const failureLine = /^concord: [a-z_]+: \S[^\n]*\n$/

interface Run {
  code: number | null
  stdout: string
  stderr: string
}

function concord(args: string[], env: NodeJS.ProcessEnv = {}): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [bin, ...args], { cwd: root, env: { ...process.env, CONCORD_DATA_DIR: '', ...env }, timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? (err as { code: number }).code : null) : 0
      done({ code, stdout, stderr })
    })
  })
}

let root = ''
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'concord-cli-'))
})
afterAll(() => rmSync(root, { recursive: true, force: true }))

describe('concord, the built command line', { timeout: 60_000 }, () => {
  it('runs the built JavaScript, not TypeScript through tsx', async () => {
    const r = await concord(['--version'])
    expect(r).toEqual({ code: 0, stdout: `concord ${pkg.version}\n`, stderr: '' })
    const built = join(projectRoot, 'out', 'cli', 'concord.js')
    expect(existsSync(built)).toBe(true)
    const direct = await new Promise<string>((done) => execFile(process.execPath, [built, '--version'], (_e, stdout) => done(stdout)))
    expect(direct).toBe(`concord ${pkg.version}\n`)
    expect(Object.keys(pkg.dependencies)).not.toContain('tsx')
  })

  it("prints each command's help and exits 0", async () => {
    for (const command of commands) {
      const long = await concord([command, '--help'])
      expect(long).toMatchObject({ code: 0, stderr: '' })
      expect(long.stdout.startsWith(`usage: concord ${command} `)).toBe(true)
      expect(long.stdout).toContain('--data-dir DIR')
      expect(await concord([command, '-h'])).toEqual(long)
      expect(await concord(['help', command])).toEqual(long)
    }
    const top = await concord(['--help'])
    expect(top).toMatchObject({ code: 0, stderr: '' })
    for (const command of commands) expect(top.stdout).toContain(`\n  ${command} `)
    expect((await concord(['export', '--help'])).stdout).toContain('--flavour FLAVOUR')
  })

  it('serve --help starts nothing: no data folder, no port', async () => {
    // Hold the port it is given: a serve that tried to listen would fail with io_error instead of exiting 0.
    const held = createTcpServer()
    await new Promise<void>((ok) => held.listen(0, '127.0.0.1', ok))
    const port = String((held.address() as { port: number }).port)
    try {
      const dataDir = join(root, 'serve-help-data')
      const help = await concord(['serve', '--port', port, '--data-dir', dataDir, '--help'])
      expect(help).toMatchObject({ code: 0, stderr: '' })
      expect(help.stdout.startsWith('usage: concord serve ')).toBe(true)
      expect(existsSync(dataDir)).toBe(false)

      // The same command without --help does try the port, so the check above can fail.
      const busy = await concord(['serve', '--port', port, '--data-dir', join(root, 'serve-busy-data')])
      expect(busy.code).toBe(1)
      expect(busy.stderr).toMatch(failureLine)
      expect(busy.stderr).toBe(`concord: io_error: port ${port} is in use on 127.0.0.1; choose another with --port (0 picks a free one)\n`)
    } finally {
      held.close()
    }
  })

  it('refuses unknown options with exit 2 and the prefix, before doing anything', async () => {
    for (const command of commands) {
      const dataDir = join(root, `unknown-${command}`)
      const r = await concord([command, '--data-dir', dataDir, '--bogus'])
      expect(r).toEqual({ code: 2, stdout: '', stderr: `concord: usage: unknown option --bogus for concord ${command}; see concord ${command} --help\n` })
      expect(existsSync(dataDir)).toBe(false)
    }
    expect(await concord(['--bogus'])).toEqual({ code: 2, stdout: '', stderr: 'concord: usage: unknown option --bogus; see concord --help\n' })
    expect(await concord(['serve', '-x'])).toMatchObject({ code: 2, stderr: 'concord: usage: unknown option -x for concord serve; see concord serve --help\n' })
  })

  it('refuses stray arguments, missing and repeated values, and a missing or unknown command with exit 2', async () => {
    const cases: [string[], string][] = [
      [['serve', 'now'], "concord: usage: unexpected argument 'now' for concord serve; see concord serve --help\n"],
      [['import', 'a.json', 'b.json', '--repo', root], "concord: usage: unexpected argument 'b.json' for concord import; see concord import --help\n"],
      [['export', '--repo'], 'concord: usage: --repo needs a value; see concord export --help\n'],
      [['export', '--repo', '--format', 'json'], 'concord: usage: --repo needs a value (to give one that starts with a dash, write --repo=VALUE); see concord export --help\n'],
      [['serve', '--port', '1', '--port', '2'], 'concord: usage: --port is given more than once; see concord serve --help\n'],
      [['serve', '--help=yes'], 'concord: usage: --help takes no value; see concord serve --help\n'],
      [['serve', '--port', 'http'], "concord: usage: --port: 'http' is not a port number (0 to 65535; 0 picks a free one)\n"],
      [['serve', '--token', 'fifteen-chars!!'], 'concord: usage: --token must be at least 16 characters long (it guards the API); leave it out to get a random one\n'],
      [['--version', 'now'], "concord: usage: unexpected argument 'now' after --version\n"],
      [['help', 'nothing'], "concord: usage: unexpected argument 'nothing' after help; the commands are serve, export, import, mcp\n"],
      [['launch'], "concord: usage: unknown command 'launch'; the commands are serve, export, import, mcp\n"],
      [[], 'concord: usage: no command given; the commands are serve, export, import, mcp (see concord --help)\n'],
    ]
    for (const [args, stderr] of cases) {
      const r = await concord(args)
      expect({ args, ...r }).toEqual({ args, code: 2, stdout: '', stderr })
    }
  })

  it('a failing import exits 1 with the same prefix and the core error code', async () => {
    const repo = join(root, 'import-repo')
    mkdirSync(repo)
    const dataDir = join(root, 'import-data')
    const missing = await concord(['import', join(root, 'nothing.json'), '--repo', repo, '--data-dir', dataDir])
    expect(missing).toMatchObject({ code: 1, stdout: '' })
    expect(missing.stderr).toMatch(failureLine)
    expect(missing.stderr).toBe(`concord: invalid_params: path: ${join(root, 'nothing.json')} does not exist\n`)

    writeFileSync(join(root, 'other.json'), '{"hello": "world"}')
    const foreign = await concord(['import', '--file', join(root, 'other.json'), '--repo', repo, '--data-dir', dataDir])
    expect(foreign.code).toBe(1)
    expect(foreign.stderr).toMatch(failureLine)
    expect(foreign.stderr).toMatch(/^concord: invalid_params: .*other\.json is not a Concord export/)

    const twice = await concord(['import', 'a.json', '--file', 'a.json', '--repo', repo])
    expect(twice).toEqual({ code: 2, stdout: '', stderr: 'concord: usage: name the export file once: either FILE or --file FILE\n' })
  })
})
