/** The member editor's agent choices name the same install lines and key variables as the presets Concord runs. */
import { describe, expect, it } from 'vitest'
import { agentCommand, agentPresets } from '../../electron/main/runtime/acp/presets'
import { agentChoices, agentCommandOf, agentDraftFor, agentParam } from '../../renderer/src/lib/presets'

describe('agent presets in the UI', () => {
  it('match the runtime presets', () => {
    for (const [agent, preset] of Object.entries(agentPresets)) {
      const choice = agentChoices[agent as keyof typeof agentPresets]
      expect(choice.install).toBe(preset.install)
      expect(choice.keyVariable).toBe(preset.keyVariable ?? null)
    }
  })

  it('turns the editor fields into the provider input, refusing an environment line that is not NAME=value', () => {
    const d = { ...agentDraftFor('codex'), args: '-c\nmodel="gpt-5.4"\n', env: 'A=1\nB=x=y', turnTimeoutMinutes: 2 }
    expect(agentParam(d)).toEqual({
      kind: 'acp',
      agent: 'codex',
      args: ['-c', 'model="gpt-5.4"'],
      env: { A: '1', B: 'x=y' },
      isolatedHome: true,
      interruptOnAdjustment: false,
      turnTimeoutSeconds: 120,
    })
    expect(() => agentParam({ ...d, env: 'oops' })).toThrow('Environment: "oops" is not NAME=value')
  })

  it('name for a runner check the program the runtime starts on a runner: the member’s own command, else the preset’s', () => {
    for (const agent of Object.keys(agentPresets) as (keyof typeof agentPresets)[]) {
      for (const own of ['', '/opt/agents/bin/acp']) {
        const started = agentCommand({ agent, agent_command: own || null, agent_args: '[]' }, [], true).command
        expect(agentCommandOf({ ...agentDraftFor(agent), command: own })).toBe(started || undefined)
      }
    }
    expect(agentCommandOf({ ...agentDraftFor('opencode'), command: '  ' })).toBe('opencode')
    expect(agentCommandOf(agentDraftFor('custom'))).toBeUndefined()
  })
})
