/**
 * The container runner on a real engine (podman here) with the real test image (test/fixtures/container-image.ts):
 * programs exec'd in a running container, bytes through stdin and stdout as they are, a unix socket of the host
 * reachable from inside (how an agent in a container reaches Concord's MCP gateway), nothing left running after the
 * container is removed, and the errors a person gets for an absent image and a name that is not Concord's.
 */
import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import {
  execArgs,
  listConcordContainers,
  removeContainer,
  runEngine,
  runInContainer,
  startContainer,
  type ContainerEngine,
} from '../../electron/main/platform/container'
import { ApiError } from '../../shared/errors'
import { needsTestImage, prepareTestImage } from '../fixtures/container-image'

prepareTestImage()

const started: { engine: ContainerEngine; name: string }[] = []
const folders: string[] = []

afterEach(async () => {
  for (const c of started.splice(0)) await removeContainer(c.engine, c.name)
  for (const f of folders.splice(0)) rmSync(f, { recursive: true, force: true })
})

const newName = (): string => `concord-test-${randomBytes(6).toString('hex')}`

async function start(
  image: string,
  engine: ContainerEngine,
  more: Partial<Parameters<typeof startContainer>[0]> = {},
): Promise<string> {
  const name = newName()
  started.push({ engine, name })
  return startContainer({ engine, image, name, mounts: [], network: 'none', ...more })
}

function tempDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'concord-container-'))
  folders.push(dir)
  return dir
}

/** The host's processes whose command line is exactly `argv`. */
function hostProcesses(argv: string[]): number[] {
  const want = argv.join('\0') + '\0'
  const pids: number[] = []
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8') === want) pids.push(Number(entry))
    } catch {
      // gone meanwhile
    }
  }
  return pids
}

async function caught(p: Promise<unknown>): Promise<ApiError> {
  try {
    await p
  } catch (e) {
    if (e instanceof ApiError) return e
    throw e
  }
  throw new Error('expected an ApiError, and it succeeded')
}

describe('container runner', () => {
  it('runs a program in the container: git of the image, with its exit code and output', async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    const name = await start(image, engine)
    const r = await runInContainer(engine, name, ['git', '--version'])
    expect(r.code).toBe(0)
    expect(r.stdout.toString('utf8')).toMatch(/^git version \d+\.\d+/)
    const failed = await runInContainer(engine, name, ['sh', '-c', 'echo oops >&2; exit 3'])
    expect(failed.code).toBe(3)
    expect(failed.stderr).toBe('oops\n')
  })

  it('passes 1 MB of binary stdin through unchanged, and runs where it is told', async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    const name = await start(image, engine)
    const bytes = randomBytes(1024 * 1024)
    const r = await runInContainer(engine, name, ['cat'], { input: bytes })
    expect(r.code).toBe(0)
    expect(r.stdout.length).toBe(bytes.length)
    expect(r.stdout.equals(bytes)).toBe(true)
    const where = await runInContainer(engine, name, ['pwd'], { workdir: '/tmp' })
    expect(where.stdout.toString()).toBe('/tmp\n')
  })

  it('gives the command line of a long-lived process with stdio piped', async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    const name = await start(image, engine)
    const [file, ...args] = execArgs(engine, name, ['sh', '-c', 'pwd; read line; echo "got $line"'], {
      workdir: '/usr',
      interactive: true,
    })
    const child = spawn(file!, args, { env: engine.env, stdio: ['pipe', 'pipe', 'pipe'] })
    let out = ''
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString()
      // Answers only once the process has shown it runs (its first line): a live conversation, not input written ahead.
      if (out.includes('\n') && child.stdin.writable) child.stdin.end('hello\n')
    })
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve))
    expect(out).toBe('/usr\ngot hello\n')
    expect(code).toBe(0)
  })

  it("connects from inside to a unix socket of the host's mounted into the container", async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    const dir = tempDir()
    const server = net.createServer((c) => c.on('data', (d) => c.end(`echo:${d.toString()}`)))
    await new Promise<void>((resolve) => server.listen(path.join(dir, 'gateway.sock'), resolve))
    try {
      const name = await start(image, engine, { mounts: [{ host: dir, target: '/run/concord', readOnly: true }] })
      const client = `
        const c = require('net').connect('/run/concord/gateway.sock', () => c.write('ping'))
        let got = ''
        c.on('data', (d) => (got += d)).on('end', () => process.stdout.write(got))
        c.on('error', (e) => { console.error(e.message); process.exit(2) })`
      const r = await runInContainer(engine, name, ['node', '-e', client])
      expect(r.stderr).toBe('')
      expect(r.stdout.toString()).toBe('echo:ping')
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it("passes environment variables by name, their values not on the engine's command line (but for its own, like PATH)", async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    const env = { CONCORD_GATEWAY: 'unix:/run/concord/gateway.sock', PATH: '/opt/tools/bin:/usr/bin:/bin' }
    const name = await start(image, engine, { env })
    const r = await runInContainer(engine, name, ['sh', '-c', 'printf "%s|%s" "$CONCORD_GATEWAY" "$PATH"'])
    expect(r.stdout.toString()).toBe(`${env.CONCORD_GATEWAY}|${env.PATH}`)
    // The engine's own command line holds the name, not the value (podman keeps it; docker does not).
    if (engine.kind !== 'podman') return
    const created = await runEngine(engine, ['inspect', '--format', '{{json .Config.CreateCommand}}', name])
    const argv = JSON.parse(created.stdout.toString()) as string[]
    expect(argv).toContain('CONCORD_GATEWAY')
    expect(argv.join(' ')).not.toContain(env.CONCORD_GATEWAY)
  })

  it('leaves nothing running once the container is removed, not even what was started in the background', async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    const name = await start(image, engine)
    // A duration no other process on this machine has: the host's process list is searched for it.
    const sleep = ['sleep', `1000.${randomBytes(4).readUInt32BE()}`]
    const r = await runInContainer(engine, name, ['sh', '-c', `${sleep.join(' ')} >/dev/null 2>&1 &`])
    expect(r.code).toBe(0)
    const inside = await runInContainer(engine, name, ['ps', '-eo', 'args'])
    expect(inside.stdout.toString()).toContain(sleep.join(' '))
    expect(hostProcesses(sleep)).toHaveLength(1)
    expect(await listConcordContainers(engine, 'concord-test-')).toContain(name)

    await removeContainer(engine, name)
    expect(hostProcesses(sleep)).toEqual([])
    const all = await runEngine(engine, ['ps', '-a', '--format', '{{.Names}}'])
    expect(all.stdout.toString().split('\n')).not.toContain(name)
    expect(await listConcordContainers(engine, 'concord-test-')).not.toContain(name)
    // Removing it again is no error (a cleanup may race an earlier one).
    await removeContainer(engine, name)
  })

  it('refuses a name already in use, and leaves the container that has it running', async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    const name = await start(image, engine)
    const e = await caught(startContainer({ engine, image, name, mounts: [], network: 'none' }))
    expect(e.code).toBe('runner_unreachable')
    expect(e.message).toMatch(/already in use/)
    expect((await runInContainer(engine, name, ['true'])).code).toBe(0)
  })

  it('says which image is missing (runner_no_image), and leaves no container of it', async (ctx) => {
    const { engine } = await needsTestImage(ctx)
    const missing = `localhost/concord-test:absent-${randomBytes(4).toString('hex')}`
    const name = newName()
    started.push({ engine, name })
    const e = await caught(startContainer({ engine, image: missing, name, mounts: [], network: 'none' }))
    expect(e.code).toBe('runner_no_image')
    expect(e.message).toContain(missing)
    expect(await listConcordContainers(engine, name)).toEqual([])
  })

  it('exec into a container that is not there is the engine failing (runner_unreachable), not a program exit', async (ctx) => {
    const { engine } = await needsTestImage(ctx)
    const e = await caught(runInContainer(engine, newName(), ['true']))
    expect(e.code).toBe('runner_unreachable')
    expect(e.message).toMatch(/no (such )?container/i)
  })

  it('names the engine and its own words when it cannot be reached or is not there (runner_unreachable)', async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    // The engine as a client of a service that is not running: podman's remote mode at a socket nobody listens on.
    const socket = path.join(tempDir(), 'absent.sock')
    const down: ContainerEngine = { ...engine, globalArgs: ['--url', `unix://${socket}`] }
    const e = await caught(startContainer({ engine: down, image, name: newName(), mounts: [], network: 'none' }))
    expect(e.code).toBe('runner_unreachable')
    expect(e.message).toContain(engine.kind)
    expect(e.message).toContain(socket)
    const gone: ContainerEngine = { ...engine, program: path.join(tempDir(), engine.kind) }
    const g = await caught(runInContainer(gone, newName(), ['true']))
    expect(g.code).toBe('runner_unreachable')
    expect(g.message).toContain(gone.program)
  })

  it("refuses names that are not Concord's, before asking the engine", async (ctx) => {
    const { image, engine } = await needsTestImage(ctx)
    for (const bad of ['web', 'Concord-x', 'concord-', 'concord-a b', 'concord-../x', 'concord-x;rm', '--rm']) {
      const e = await caught(startContainer({ engine, image, name: bad, mounts: [], network: 'none' }))
      expect(e.code, bad).toBe('invalid_params')
      expect(() => execArgs(engine, bad, ['true']), bad).toThrow(/not a Concord container name/)
      expect((await caught(removeContainer(engine, bad))).code, bad).toBe('invalid_params')
    }
    const e = await caught(listConcordContainers(engine, 'other-'))
    expect(e.code).toBe('invalid_params')
    const mount = await caught(
      start(image, engine, { mounts: [{ host: 'relative/dir', target: '/x', readOnly: false }] }),
    )
    expect(mount.code).toBe('invalid_params')
  })
})
