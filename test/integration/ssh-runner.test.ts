/**
 * The SSH platform layer against a real sshd on this machine (test/fixtures/ssh-host.ts): commands run on the host
 * with bytes in and out unchanged, arguments reach the program as they were given, and a host that cannot be used is
 * refused with a code saying why.
 */
import { spawnSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import {
  appendFileSync,
  chmodSync,
  existsSync,
  mkdtempSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ApiError } from '../../shared/errors'
import { runOnHost, sshArgs } from '../../electron/main/platform/ssh'
import { checkRunner } from '../../electron/main/runtime/runner/check'
import { makeCore, rejectsWith } from '../fixtures/core'
import {
  fileNeedsSshHost,
  freePort,
  noSshHostReason,
  processesOf,
  startSshHost,
  userExists,
  type SshHost,
} from '../fixtures/ssh-host'

fileNeedsSshHost()

let host: SshHost
let controlDir: string

beforeAll(async () => {
  if (noSshHostReason()) return
  host = await startSshHost({ alias: 'runner1' })
  // A short folder: a control socket's path must fit in 107 bytes (see platform/ssh.ts).
  controlDir = mkdtempSync(join(tmpdir(), 'cc-'))
  // Aliases of the same client config: to a port nothing listens on, and to the host with a known_hosts that does not
  // know it (ssh's default StrictHostKeyChecking, ask, with nobody to ask).
  const ssh = join(host.clientHome, '.ssh')
  writeFileSync(join(ssh, 'known_hosts_empty'), '')
  appendFileSync(
    join(ssh, 'config'),
    [
      `Host closed1\n  HostName 127.0.0.1\n  Port ${await freePort()}\n  User ${host.user}`,
      `Host unknown1\n  HostName 127.0.0.1\n  Port ${host.port}\n  User ${host.user}`,
      `  IdentityFile ${join(ssh, 'id_ed25519')}\n  UserKnownHostsFile ${join(ssh, 'known_hosts_empty')}\n`,
    ].join('\n'),
  )
}, 60_000)

afterAll(async () => {
  await host?.stop()
  if (controlDir) rmSync(controlDir, { recursive: true, force: true })
})

/** The ApiError a call rejected with (fails the test when it resolved). */
async function refusal(p: Promise<unknown>): Promise<ApiError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(ApiError)
  return err as ApiError
}

const opts = () => ({ controlDir, env: host.env, timeoutMs: 15_000 })

describe('runOnHost', () => {
  it('passes 1 MB of any bytes through the host unchanged', async () => {
    const input = randomBytes(1024 * 1024)
    const r = await runOnHost(host.alias, ['cat'], { ...opts(), input })
    expect(r.code).toBe(0)
    expect(r.stdout.length).toBe(input.length)
    expect(r.stdout.equals(input)).toBe(true)
  })

  it('runs as the host user, in its home', async () => {
    const r = await runOnHost(host.alias, ['sh', '-c', 'id -un; pwd'], opts())
    expect(r.stdout.toString()).toBe(`${host.user}\n${host.home}\n`)
    expect(statSync(host.home).mode & 0o777).toBe(0o700)
  })

  it('gives each argument to the program as it was, whatever the shell would make of it', async () => {
    const args = [
      'two words',
      "it's",
      '"double"',
      '$(touch pwned)',
      '`id`',
      'line one\nline two',
      '$HOME',
      '*',
      'a\\b',
      '',
      ';exit 3',
      "'",
    ]
    const r = await runOnHost(host.alias, ['printf', '%s\\0', ...args], opts())
    expect(r.code).toBe(0)
    expect(r.stdout.toString('utf8').split('\0').slice(0, -1)).toEqual(args)
    // Nothing was run by the host's shell: the command substitution is text.
    expect(existsSync(join(host.home, 'pwned'))).toBe(false)
  })

  it("reports the command's exit code and stderr as the command's, 255 included", async () => {
    const r = await runOnHost(host.alias, ['sh', '-c', 'echo oops >&2; exit 255'], opts())
    expect(r).toMatchObject({ code: 255, stderr: 'oops\n', timedOut: false })
  })

  it('shares one connection between the calls to a host, and makes one per call when the folder is too long', async () => {
    const before = host.logins()
    for (let i = 0; i < 3; i++) expect((await runOnHost(host.alias, ['true'], opts())).code).toBe(0)
    // The connection an earlier test opened, or one more if it has ended (ControlPersist) since.
    expect(host.logins() - before).toBeLessThanOrEqual(1)

    // A socket path longer than a Unix socket's: no sharing, and the calls still work.
    const long = join(controlDir, 'x'.repeat(80))
    expect(sshArgs(host.alias, { controlDir: long, env: host.env }).join(' ')).not.toMatch(/ControlMaster/)
    const unshared = host.logins()
    for (let i = 0; i < 2; i++) {
      expect((await runOnHost(host.alias, ['true'], { ...opts(), controlDir: long })).code).toBe(0)
    }
    expect(host.logins() - unshared).toBe(2)
  })

  it('stops a command at its timeout, saying so, and kills it and what it started on the host', async () => {
    const sleeps = () => spawnSync('pgrep', ['-U', host.user, '-x', 'sleep']).stdout.toString().trim()
    const r = await runOnHost(host.alias, ['sh', '-c', 'sleep 600 & sleep 601; echo never'], {
      ...opts(),
      timeoutMs: 300,
    })
    expect(r).toMatchObject({ code: null, timedOut: true, stderr: '' })
    // Killed (SIGKILL, delivered at once): gone when sshd, their parent, has reaped them.
    await expect.poll(sleeps).toBe('')
  })

  it('refuses a host that could be read as an option, before ssh sees it', async () => {
    for (const bad of ['-oProxyCommand=touch /tmp/x', '-oProxyCommand=id', 'a b', 'host;id', '']) {
      const err = await refusal(runOnHost(bad, ['true'], opts()))
      expect(err.code).toBe('invalid_params')
    }
    expect(() => sshArgs('x'.repeat(256), { controlDir })).toThrow(/at most 255/)
  })

  it('says runner_unreachable, naming the host and what ssh said, when nothing listens', async () => {
    const err = await refusal(runOnHost('closed1', ['true'], opts()))
    expect(err.code).toBe('runner_unreachable')
    expect(err.message).toContain('closed1')
    expect(err.message).toMatch(/Connection refused/)
  })

  it('never accepts a host key it does not know: runner_unreachable, with ssh saying why', async () => {
    // A folder of its own: the same host, port and user share runner1's connection, whose key was known (%C).
    const ownDir = mkdtempSync(join(tmpdir(), 'cc-'))
    const err = await refusal(runOnHost('unknown1', ['true'], { ...opts(), controlDir: ownDir }))
    rmSync(ownDir, { recursive: true, force: true })
    expect(err.code).toBe('runner_unreachable')
    expect(err.message).toMatch(/unknown1.*Host key verification failed/)
  })
})

describe('checkRunner on an SSH host', () => {
  const ssh = () => ({ kind: 'ssh' as const, host: host.alias })

  it("answers the host's git version, and the agent's path there when asked", async () => {
    const plain = await checkRunner(ssh(), undefined, { controlDir, env: host.env })
    expect(plain).toEqual({ ok: true, git: expect.stringMatching(/^\d+\.\d+/) })
    const withAgent = await checkRunner(ssh(), 'node', { controlDir, env: host.env })
    expect(withAgent).toMatchObject({ ok: true, agent: expect.stringMatching(/\/node$/) })
  })

  it('says runner_no_agent, naming the host and the command, when the agent is not there', async () => {
    const err = await refusal(checkRunner(ssh(), 'no-such-agent-xyz', { controlDir, env: host.env }))
    expect(err.code).toBe('runner_no_agent')
    expect(err.message).toContain(host.alias)
    expect(err.message).toContain('no-such-agent-xyz')
  })

  it('says runner_unreachable, naming the host, for a host nothing listens on', async () => {
    const err = await refusal(checkRunner({ kind: 'ssh', host: 'closed1' }, undefined, { controlDir, env: host.env }))
    expect(err.code).toBe('runner_unreachable')
    expect(err.message).toContain('closed1')
  })

  it('refuses an agent command that would be read as an option', async () => {
    const err = await refusal(checkRunner(ssh(), '-v', { controlDir, env: host.env }))
    expect(err.code).toBe('invalid_params')
  })
})

describe('the runner.check method', () => {
  it("checks a runner as the app asks: this machine, and an SSH host of the user's ssh config", async () => {
    const t = makeCore()
    const home = process.env.HOME
    try {
      expect(await t.core.invoke('runner.check', { runner: { kind: 'local' } })).toMatchObject({ ok: true })
      // Concord's own HOME is the user's: here the fixture's client side, whose ssh config names the host.
      process.env.HOME = host.clientHome
      expect(await t.core.invoke('runner.check', { runner: { kind: 'ssh', host: host.alias }, agent: 'node' })).toEqual(
        {
          ok: true,
          git: expect.any(String),
          agent: expect.stringMatching(/\/node$/),
        },
      )
      const err = await rejectsWith(
        t.core.invoke('runner.check', { runner: { kind: 'ssh', host: '-oProxyCommand=touch pwned' } }),
        'invalid_params',
      )
      expect(err.message).toMatch(/host/)
      await rejectsWith(
        t.core.invoke('runner.check', { runner: { kind: 'ssh', host: 'closed1' } }),
        'runner_unreachable',
      )
    } finally {
      process.env.HOME = home
      await t.cleanup()
    }
  })
})

describe('checkRunner on a host without git', () => {
  it('says runner_no_git, naming the host', async () => {
    // The host's PATH is one folder that holds sh and nothing else.
    const bin = mkdtempSync(join(tmpdir(), 'cc-bin-'))
    chmodSync(bin, 0o755)
    symlinkSync('/bin/sh', join(bin, 'sh'))
    const bare = await startSshHost({ alias: 'bare1', path: [bin] })
    const ownDir = mkdtempSync(join(tmpdir(), 'cc-'))
    try {
      const err = await refusal(
        checkRunner({ kind: 'ssh', host: bare.alias }, 'node', { controlDir: ownDir, env: bare.env }),
      )
      expect(err.code).toBe('runner_no_git')
      expect(err.message).toContain('bare1')
    } finally {
      await bare.stop()
      rmSync(ownDir, { recursive: true, force: true })
      rmSync(bin, { recursive: true, force: true })
    }
  })
})

describe('the SSH host fixture', () => {
  it('leaves neither the user nor any of its processes after stop()', async () => {
    const other = await startSshHost({ alias: 'runner2' })
    const ownDir = mkdtempSync(join(tmpdir(), 'cc-'))
    try {
      // A process that outlives its command, and the connection ControlPersist keeps open.
      const r = await runOnHost(other.alias, ['sh', '-c', 'sleep 600 </dev/null >/dev/null 2>&1 & echo started'], {
        controlDir: ownDir,
        env: other.env,
        timeoutMs: 15_000,
      })
      expect(r.stdout.toString()).toBe('started\n')
      expect(processesOf(other.user).length).toBeGreaterThan(0)
    } finally {
      await other.stop()
      rmSync(ownDir, { recursive: true, force: true })
    }
    expect(userExists(other.user)).toBe(false)
    expect(processesOf(other.user)).toEqual([])
  })
})
