/**
 * ssh's command line as platform/ssh.ts builds it: the host last after `--`, the options of an unattended call, -F
 * only where HOME would otherwise be ignored, and the control sockets' folder short enough for a socket and private.
 */
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { quoteForShell, sshArgs, sshControlDir } from '../../electron/main/platform/ssh'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'cc-'))
})
afterEach(() => rmSync(dir, { recursive: true, force: true }))

describe('sshArgs', () => {
  it('ends with -T -- host, after the options of a call nobody answers', () => {
    const args = sshArgs('me@build-1.example.org', { controlDir: join(dir, 'ssh'), env: {} })
    expect(args.slice(-3)).toEqual(['-T', '--', 'me@build-1.example.org'])
    const options = args.filter((_, i) => args[i - 1] === '-o')
    expect(options).toEqual([
      'BatchMode=yes',
      'ConnectTimeout=10',
      'ServerAliveInterval=15',
      'ServerAliveCountMax=3',
      'ControlMaster=auto',
      `ControlPath=${join(dir, 'ssh', '%C')}`,
      'ControlPersist=60',
    ])
    expect(statSync(join(dir, 'ssh')).mode & 0o777).toBe(0o700)
  })

  it('names the config of a HOME that is not the passwd home, and only when it has one', () => {
    const controlDir = join(dir, 'ssh')
    expect(sshArgs('h', { controlDir, env: { HOME: dir } })).not.toContain('-F')
    mkdirSync(join(dir, '.ssh'))
    writeFileSync(join(dir, '.ssh', 'config'), 'Host h\n')
    expect(sshArgs('h', { controlDir, env: { HOME: dir } }).slice(0, 2)).toEqual(['-F', join(dir, '.ssh', 'config')])
    // The passwd home is where ssh looks anyway; -F would only drop /etc/ssh/ssh_config.
    expect(sshArgs('h', { controlDir, env: { HOME: userInfo().homedir } })).not.toContain('-F')
  })

  it('refuses hosts ssh would read as options or that are not host names', () => {
    for (const host of ['-oProxyCommand=id', '-p22', 'a b', 'h;id', 'h\nx', '$(id)', '', 'x'.repeat(256)]) {
      expect(() => sshArgs(host, { controlDir: dir, env: {} }), host).toThrow(
        expect.objectContaining({ code: 'invalid_params' }),
      )
    }
    for (const host of ['runner1', 'me@10.0.0.2', 'me@[::1]', 'host-a.example.org', 'x'.repeat(255)]) {
      expect(sshArgs(host, { controlDir: dir, env: {} }).at(-1)).toBe(host)
    }
  })
})

describe('quoteForShell', () => {
  it('single-quotes every argument, a quote inside one closed and reopened around it', () => {
    expect(quoteForShell(['printf', '%s', "it's", ''])).toBe(`'printf' '%s' 'it'\\''s' ''`)
  })

  it('refuses an argument with a NUL and an empty command', () => {
    expect(() => quoteForShell(['a\0b'])).toThrow(expect.objectContaining({ code: 'invalid_params' }))
    expect(() => quoteForShell([])).toThrow(expect.objectContaining({ code: 'invalid_params' }))
  })
})

describe('sshControlDir', () => {
  it("is the data folder's own when a socket's path fits there", () => {
    expect(sshControlDir('/home/me/.config/Concord')).toBe('/home/me/.config/Concord/ssh')
  })

  it('is a private folder of /tmp for a data folder too deep for a socket, and refuses one others may enter', () => {
    const deep = join(dir, 'a'.repeat(60))
    const short = sshControlDir(deep)
    try {
      expect(short).toMatch(/^\/tmp\/concord-ssh-\d+-[0-9a-f]{12}$/)
      expect(short.length + 1 + 40 + 17).toBeLessThanOrEqual(107)
      expect(statSync(short).mode & 0o777).toBe(0o700)
      expect(sshControlDir(deep)).toBe(short)
      chmodSync(short, 0o755)
      expect(() => sshControlDir(deep)).toThrow(expect.objectContaining({ code: 'io_error' }))
    } finally {
      rmSync(short, { recursive: true, force: true })
    }
  })
})
