/** The line the runner Check shows under the SSH host when the runner answered (issue 36). */
import { describe, expect, it } from 'vitest'
import { checkAnswer } from '../../renderer/src/features/team/SshHostField'

describe('the runner check answer', () => {
  it('names the host and git, and the agent by its name or, given as a path, by the path alone', () => {
    expect(checkAnswer('runner1', undefined, { ok: true, git: '2.39.5' })).toBe('Reached runner1: git 2.39.5')
    expect(checkAnswer('runner1', 'opencode', { ok: true, git: '2.39.5', agent: '/usr/local/bin/opencode' })).toBe(
      'Reached runner1: git 2.39.5, opencode at /usr/local/bin/opencode',
    )
    expect(checkAnswer('ci@runner1', '/opt/a/acp', { ok: true, git: '2.45.0', agent: '/opt/a/acp' })).toBe(
      'Reached ci@runner1: git 2.45.0, /opt/a/acp found',
    )
  })
})
