/**
 * The command line as a person runs it: the real built CLI (bin/concord.js → out/cli/concord.js) as a
 * child process; `npm start` where Electron cannot run; SQLite for Electron fetched the way npm start
 * and packaging fetch it, from a local release host.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import { createServer as createTcpServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ensureRendererBuilt, projectRoot } from '../e2e/support'

const bin = join(projectRoot, 'bin', 'concord.js')
const pkg = JSON.parse(readFileSync(join(projectRoot, 'package.json'), 'utf8')) as {
  version: string
  dependencies: Record<string, string>
}
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
    execFile(
      process.execPath,
      [bin, ...args],
      { cwd: root, env: { ...process.env, CONCORD_DATA_DIR: '', ...env }, timeout: 60_000 },
      (err, stdout, stderr) => {
        const code = err
          ? typeof (err as { code?: unknown }).code === 'number'
            ? (err as { code: number }).code
            : null
          : 0
        done({ code, stdout, stderr })
      },
    )
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
    const direct = await new Promise<string>((done) =>
      execFile(process.execPath, [built, '--version'], (_e, stdout) => done(stdout)),
    )
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
      expect(busy.stderr).toBe(
        `concord: io_error: port ${port} is in use on 127.0.0.1; choose another with --port (0 picks a free one)\n`,
      )
    } finally {
      held.close()
    }
  })

  it('refuses unknown options with exit 2 and the prefix, before doing anything', async () => {
    for (const command of commands) {
      const dataDir = join(root, `unknown-${command}`)
      const r = await concord([command, '--data-dir', dataDir, '--bogus'])
      expect(r).toEqual({
        code: 2,
        stdout: '',
        stderr: `concord: usage: unknown option --bogus for concord ${command}; see concord ${command} --help\n`,
      })
      expect(existsSync(dataDir)).toBe(false)
    }
    expect(await concord(['--bogus'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'concord: usage: unknown option --bogus; see concord --help\n',
    })
    expect(await concord(['serve', '-x'])).toMatchObject({
      code: 2,
      stderr: 'concord: usage: unknown option -x for concord serve; see concord serve --help\n',
    })
  })

  it('refuses stray arguments, missing and repeated values, and a missing or unknown command with exit 2', async () => {
    const cases: [string[], string][] = [
      [['serve', 'now'], "concord: usage: unexpected argument 'now' for concord serve; see concord serve --help\n"],
      [
        ['import', 'a.json', 'b.json', '--repo', root],
        "concord: usage: unexpected argument 'b.json' for concord import; see concord import --help\n",
      ],
      [['export', '--repo'], 'concord: usage: --repo needs a value; see concord export --help\n'],
      [
        ['export', '--repo', '--format', 'json'],
        'concord: usage: --repo needs a value (to give one that starts with a dash, write --repo=VALUE); see concord export --help\n',
      ],
      [
        ['serve', '--port', '1', '--port', '2'],
        'concord: usage: --port is given more than once; see concord serve --help\n',
      ],
      [['serve', '--help=yes'], 'concord: usage: --help takes no value; see concord serve --help\n'],
      [
        ['serve', '--port', 'http'],
        "concord: usage: --port: 'http' is not a port number (0 to 65535; 0 picks a free one)\n",
      ],
      [
        ['serve', '--token', 'fifteen-chars!!'],
        'concord: usage: --token must be at least 16 characters long (it guards the API); leave it out to use the one kept in the data folder\n',
      ],
      [['--version', 'now'], "concord: usage: unexpected argument 'now' after --version\n"],
      [
        ['help', 'nothing'],
        "concord: usage: unexpected argument 'nothing' after help; the commands are serve, export, import, mcp\n",
      ],
      [['launch'], "concord: usage: unknown command 'launch'; the commands are serve, export, import, mcp\n"],
      [[], 'concord: usage: no command given; the commands are serve, export, import, mcp (see concord --help)\n'],
      [
        ['mcp'],
        'concord: usage: --member is required: the id of the member this agent acts as (see the member in Concord); see concord mcp --help\n',
      ],
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
    expect(twice).toEqual({
      code: 2,
      stdout: '',
      stderr: 'concord: usage: name the export file once: either FILE or --file FILE\n',
    })
  })
})

/** Reads a child's stdout until `pattern` matches; rejects with what it printed if it exits first. */
function waitForOutput(child: ChildProcess, pattern: RegExp): Promise<{ match: RegExpExecArray; out: string }> {
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const match = pattern.exec(out)
      if (match) resolve({ match, out })
    })
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()))
    child.once('exit', (code) => reject(new Error(`exited ${code} before printing ${pattern}:\n${out}`)))
  })
}

describe('npm start where Electron cannot run', () => {
  let child: ChildProcess | null = null
  beforeAll(() => ensureRendererBuilt(), 300_000)
  afterAll(() => {
    if (child?.exitCode === null) process.kill(-child.pid!, 'SIGKILL')
  })

  it('says so in one line and serves the browser UI with a fresh token', async () => {
    const noElectron = mkdtempSync(join(root, 'no-electron-'))
    const dataDir = join(root, 'start-data')
    // Its own process group, so stopping it stops npm, the start script and concord serve together.
    child = spawn('npm', ['start', '--', '--port', '0', '--data-dir', dataDir], {
      cwd: projectRoot,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        ELECTRON_SKIP_BINARY_DOWNLOAD: '1',
        ELECTRON_OVERRIDE_DIST_PATH: noElectron,
        DISPLAY: '',
        CONCORD_DATA_DIR: '',
      },
    })
    const exited = new Promise((done) => child!.once('exit', done))
    const { match, out } = await waitForOutput(
      child,
      /Concord serving on (http:\/\/127\.0\.0\.1:\d+)\/\?token=([\w-]+)/,
    )
    const [, base, token] = match
    const notices = out.split('\n').filter((l) => l.startsWith('npm start:'))
    expect(notices).toHaveLength(1)
    expect(notices[0]).toMatch(
      /^npm start: no desktop app here: the Electron binary is not installed \(ELECTRON_SKIP_BINARY_DOWNLOAD\)\. Starting the browser UI instead \(concord serve\)(, after building it)?\.$/,
    )
    expect(out.indexOf(notices[0]!)).toBeLessThan(out.indexOf('Concord serving on'))
    expect(token!.length).toBeGreaterThanOrEqual(16)

    const call = (auth: string) =>
      fetch(`${base}/api/workspaces.list`, {
        method: 'POST',
        headers: { authorization: auth, 'content-type': 'application/json' },
        body: '{}',
      })
    const listed = await call(`Bearer ${token}`)
    expect(listed.status).toBe(200)
    expect(await listed.json()).toEqual({ ok: true, value: [] })
    expect((await call('Bearer not-the-token-at-all')).status).toBe(401)
    expect(existsSync(join(dataDir, 'concord.sqlite'))).toBe(true)
    expect((await fetch(`${base}/`)).status).toBe(200) // the built renderer

    process.kill(-child.pid!, 'SIGTERM')
    await exited
    // npm can exit before concord serve has finished closing its server: wait (bounded) until the port refuses.
    await expect
      .poll(
        () =>
          call(`Bearer ${token}`).then(
            () => 'open',
            () => 'closed',
          ),
        { timeout: 15_000 },
      )
      .toBe('closed')
  }, 300_000)
})

describe('SQLite for Electron', () => {
  let server: Server
  let host = ''
  const requests: string[] = []
  const fixture = Buffer.from('stands in for better_sqlite3.node built for Electron\n')
  const version = (name: string) =>
    (JSON.parse(readFileSync(join(projectRoot, 'node_modules', name, 'package.json'), 'utf8')) as { version: string })
      .version
  const sha = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex')
  const nodeBuild = join(projectRoot, 'node_modules', 'better-sqlite3', 'build', 'Release', 'better_sqlite3.node')

  beforeAll(async () => {
    // A release host laid out like better-sqlite3's: one tarball per runtime, ABI, platform and arch.
    const abi = readFileSync(join(projectRoot, 'node_modules', 'electron', 'abi_version'), 'utf8').trim()
    const bsq = version('better-sqlite3')
    const staging = join(root, 'release')
    mkdirSync(join(staging, 'build', 'Release'), { recursive: true })
    writeFileSync(join(staging, 'build', 'Release', 'better_sqlite3.node'), fixture)
    const tarball = join(root, 'release.tar.gz')
    await new Promise<void>((ok, fail) =>
      execFile('tar', ['czf', tarball, '-C', staging, 'build'], (err) =>
        err ? fail(new Error(err.message, { cause: err })) : ok(),
      ),
    )
    const wanted = `/v${bsq}/better-sqlite3-v${bsq}-electron-v${abi}-${process.platform}-${process.arch}.tar.gz`
    server = createServer((req, res) => {
      requests.push(req.url ?? '')
      if (req.url !== wanted) return res.writeHead(404).end()
      res.writeHead(200, { 'content-type': 'application/gzip' }).end(readFileSync(tarball))
    })
    await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok))
    host = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  afterAll(() => server?.close())

  function fetchBinding(outDir: string): Promise<Run> {
    return new Promise((done) => {
      const env = {
        ...process.env,
        npm_config_better_sqlite3_binary_host: host,
        npm_config_cache: join(root, 'npm-cache'),
      }
      execFile(
        process.execPath,
        [join(projectRoot, 'scripts', 'electron-sqlite.mjs'), '--out', outDir],
        { env, timeout: 120_000 },
        (err, stdout, stderr) => {
          done({ code: err ? ((err as { code?: number }).code ?? null) : 0, stdout, stderr })
        },
      )
    })
  }

  it("fetches better-sqlite3's prebuilt binary for Electron into its own folder, leaving the Node build alone", async () => {
    const before = sha(nodeBuild)
    const outDir = join(root, 'native-electron')
    const first = await fetchBinding(outDir)
    expect(first).toMatchObject({ code: 0, stderr: '' })
    expect(requests).toHaveLength(1)
    expect(readFileSync(join(outDir, 'better_sqlite3.node'))).toEqual(fixture)
    const stamp = JSON.parse(readFileSync(join(outDir, 'better_sqlite3.json'), 'utf8'))
    expect(stamp).toEqual({
      electron: version('electron'),
      betterSqlite3: version('better-sqlite3'),
      platform: process.platform,
      arch: process.arch,
      how: 'prebuilt',
    })
    expect(sha(nodeBuild)).toBe(before)

    // There for this Electron: nothing fetched. Made for another: fetched again.
    const again = await fetchBinding(outDir)
    expect(again).toMatchObject({ code: 0, stderr: '' })
    expect(again.stdout).toContain('already there')
    expect(requests).toHaveLength(1)
    writeFileSync(join(outDir, 'better_sqlite3.json'), JSON.stringify({ ...stamp, electron: '1.0.0' }))
    writeFileSync(join(outDir, 'better_sqlite3.node'), 'made for Electron 1')
    const refetched = await fetchBinding(outDir)
    expect(refetched).toMatchObject({ code: 0, stderr: '' })
    expect(refetched.stdout).toContain('(prebuilt)') // prebuild-install's cache may answer instead of the host
    expect(readFileSync(join(outDir, 'better_sqlite3.node'))).toEqual(fixture)
    expect(JSON.parse(readFileSync(join(outDir, 'better_sqlite3.json'), 'utf8'))).toEqual(stamp)
    expect(sha(nodeBuild)).toBe(before)
  }, 240_000)
})
