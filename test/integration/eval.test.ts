/**
 * npm run eval (issue 24): the experiment's own guarantees, on a few variants. Concord's arm — the real harness,
 * propagation, AutoTurns and acceptance gate — never accepts a task that missed a change nor evidence that no
 * longer holds; breaking propagation or the gate shows up in those figures; the baselines' figures are measured
 * (breaking the broadcast's delivery moves them); the same seed gives the same figures.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import type { ArmName, Sabotage } from '../../eval/arms/arm'
import { runExperiment, type Experiment } from '../../eval/experiment'
import { BroadcastArm } from '../../eval/arms/broadcast'
import { webSearchScenario } from '../../eval/scenarios'
import { tokens } from '../../eval/tokens'
import { World } from '../../eval/world'
import { ModelDriver, modelProvider } from '../../eval/model'
import { simulate } from '../../eval/simulate'
import { actArguments, competentAction, type PromptState } from '../fixtures/competent-member'
import { startModelServer, type RecordedRequest, type ScriptedReply } from '../fixtures/model-server'

const SEED = 3
const VARIANTS = 4
const run = (arms: ArmName[], sabotage?: Sabotage) =>
  runExperiment({ seed: SEED, runs: 2, variants: VARIANTS, arms, sabotage })
/** Everything but wall time, which is the one figure that is not deterministic. */
const figures = (e: Experiment) =>
  [...e.outcomes].map(([arm, list]) => [
    arm,
    list.map(({ wallMs: _w, ...rest }) => rest),
    Object.entries(e.results.arms[arm]!).filter(([k]) => k !== 'wallMs' && k !== 'worst'),
  ])
const sum = (
  e: Experiment,
  arm: 'concord' | 'broadcast' | 'chat' | 'careful',
  f: 'affectedMissed' | 'staleEvidenceUsed' | 'humanInterventions' | 'unaffectedDisturbed' | 'coordinationTokens',
) => e.outcomes.get(arm)!.reduce((a, o) => a + o[f], 0)

describe('npm run eval', () => {
  it('the Web Search scenario: Concord re-verifies the accepted search tool after the change; broadcast and chat leave it accepted', async () => {
    const concord = await simulate(webSearchScenario(), 'concord', { seed: SEED, run: 0 })
    expect(concord).toMatchObject({ affectedMissed: 0, staleEvidenceUsed: 0, humanInterventions: 0, unfinished: 0 })
    for (const arm of ['broadcast', 'chat'] as const) {
      const baseline = await simulate(webSearchScenario(), arm, { seed: SEED, run: 0 })
      expect(baseline.affectedMissed).toBe(1)
      // The wrong acceptance undone, and the relay to the implementer.
      expect(baseline.humanInterventions).toBe(2)
      expect(baseline.unfinished).toBe(0)
    }
  }, 60_000)

  it('Concord misses no affected task and uses no stale evidence in any run; the baselines do; the same seed gives the same figures', async () => {
    const first = await run(['concord', 'broadcast', 'chat'])
    const concord = first.outcomes.get('concord')!
    expect(concord).toHaveLength(2 * (VARIANTS + 1))
    for (const o of concord) {
      expect(o, `${o.scenario} run ${o.run + 1}`).toMatchObject({
        affectedMissed: 0,
        staleEvidenceUsed: 0,
        unfinished: 0,
      })
    }
    for (const arm of ['broadcast', 'chat'] as const) {
      expect(sum(first, arm, 'affectedMissed')).toBeGreaterThan(0)
      for (const o of first.outcomes.get(arm)!) expect(o.unfinished, `${arm} ${o.scenario}`).toBe(0)
    }
    expect(first.results).toMatchObject({ seed: SEED, runs: 2, scenarios: VARIANTS + 1 })
    expect(Object.keys(first.results.arms.concord!).sort()).toEqual(
      [
        'affectedMissed',
        'coordinationTokens',
        'humanInterventions',
        'staleEvidenceUsed',
        'unaffectedDisturbed',
        'validEvidenceDiscarded',
        'wallMs',
        'worst',
      ].sort(),
    )
    const again = await run(['concord', 'broadcast', 'chat'])
    expect(figures(again)).toEqual(figures(first))
  }, 300_000)

  it('the careful human misses nothing, by construction, and pays for it: every claim checked again, more human actions than Concord', async () => {
    const e = await run(['concord', 'careful'])
    for (const o of e.outcomes.get('careful')!)
      expect(o, `${o.scenario} run ${o.run + 1}`).toMatchObject({
        affectedMissed: 0,
        staleEvidenceUsed: 0,
        unfinished: 0,
      })
    const careful = e.outcomes.get('careful')!.reduce((a, o) => a + o.validEvidenceDiscarded, 0)
    const concord = e.outcomes.get('concord')!.reduce((a, o) => a + o.validEvidenceDiscarded, 0)
    expect(careful).toBeGreaterThan(concord)
    expect(sum(e, 'careful', 'humanInterventions')).toBeGreaterThan(sum(e, 'concord', 'humanInterventions'))
  }, 300_000)

  it('goes red when propagation is broken: every change recorded as editorial flags nothing, and affected tasks are accepted', async () => {
    const broken = await run(['concord'], 'concord-skip-flags')
    expect(sum(broken, 'concord', 'affectedMissed')).toBeGreaterThan(0)
  }, 300_000)

  it('goes red when the acceptance gate is broken: refused acceptances written anyway use stale evidence', async () => {
    const broken = await run(['concord'], 'concord-skip-gate')
    expect(sum(broken, 'concord', 'staleEvidenceUsed')).toBeGreaterThan(0)
  }, 300_000)

  it("the baselines' figures come from running them: dropping the broadcast's delivery changes them", async () => {
    const sound = await run(['broadcast'])
    const dropped = await run(['broadcast'], 'broadcast-drop')
    // Nobody hears of a change: nobody is disturbed, more work is accepted wrong, and the human relays more.
    expect(sum(sound, 'broadcast', 'unaffectedDisturbed')).toBeGreaterThan(0)
    expect(sum(dropped, 'broadcast', 'unaffectedDisturbed')).toBe(0)
    expect(sum(dropped, 'broadcast', 'affectedMissed')).toBeGreaterThan(sum(sound, 'broadcast', 'affectedMissed'))
    expect(sum(dropped, 'broadcast', 'humanInterventions')).toBeGreaterThan(
      sum(sound, 'broadcast', 'humanInterventions'),
    )
  }, 300_000)
})

describe('npm run eval: the coordination-token count is the same rule in every arm', () => {
  it('what members knew when the work was handed out costs nothing: a scenario without changes has 0 coordination tokens in every arm', async () => {
    const quiet = { ...webSearchScenario(), changes: [] }
    for (const arm of ['concord', 'broadcast', 'chat'] as const) {
      const o = await simulate(quiet, arm, { seed: SEED, run: 0 })
      expect(o.unfinished, arm).toBe(0)
      // The chat thread's status lines are its medium and count; nothing else may.
      expect(
        Object.keys(o.tokensBy).filter((k) => k !== 'thread'),
        arm,
      ).toEqual([])
    }
  }, 60_000)

  it("a broadcast carries the decision's full current text and the change, to every member; Concord counts its notices, turns and the brief lines the change altered", async () => {
    const s = webSearchScenario()
    const world = new World(s)
    const arm = new BroadcastArm(s, world)
    await arm.setup()
    world.apply(0, s.changes[0]!)
    await arm.applyChange(0, s.changes[0]!)
    const texts: string[] = []
    for (let m = 0; m < s.members.length; m++) {
      const [text] = (await arm.context(m)).text
      texts.push(text!)
      for (const part of [
        '"Search timeout"',
        'Now: Web search gives up after 30 s and returns the partial results',
        'Was: Web search gives up after 30 s and returns an error',
        `Rationale: ${s.decisions[0]!.rationale}`,
      ])
        expect(text, s.members[m]!.name).toContain(part)
    }
    // The same message to every member, each counted once, when it reads it.
    expect(new Set(texts).size).toBe(1)
    expect(arm.tokensBy.broadcast).toBe(s.members.length * tokens(texts[0]!))
    expect((await arm.context(0)).text).toEqual([])
    const concord = await simulate(s, 'concord', { seed: SEED, run: 0 })
    expect(Object.keys(concord.tokensBy).sort()).toEqual(['brief', 'notice', 'turn'])
    expect(concord.coordinationTokens).toBe(Object.values(concord.tokensBy).reduce((a, b) => a + b, 0))
  }, 60_000)
})

/** The user message of a recorded request, whatever the wire format. */
const userText = (req: RecordedRequest): string => {
  const last = req.body.messages.at(-1)
  return typeof last.content === 'string'
    ? last.content
    : last.content.map((b: { text?: string }) => b.text ?? '').join('')
}

const stateOf = (req: RecordedRequest): PromptState => JSON.parse(/```json\n([\s\S]*?)\n```/.exec(userText(req))![1]!)

/** A competent member, played by the scripted model from nothing but the prompt: follow the latest text read. */
function competent(req: RecordedRequest): ScriptedReply {
  const action = competentAction(stateOf(req))
  return { toolCalls: [{ name: 'act', arguments: actArguments(action) }], usage: { input: 50, output: 7 } }
}

describe('npm run eval --provider (model-driven members, offline against the scripted wire-format server)', () => {
  const drive = async (
    kind: 'openai' | 'anthropic' | 'openai-compatible',
    reply: (req: RecordedRequest) => ScriptedReply,
    maxCalls?: number,
  ) => {
    const server = await startModelServer({ unscripted: reply })
    try {
      const env = { OPENAI_API_KEY: 'test-key', ANTHROPIC_API_KEY: 'test-key' }
      const baseURL = kind === 'anthropic' ? server.anthropicBaseURL : server.openaiBaseURL
      const provider = modelProvider({ kind, model: 'scripted', baseURL, env, maxRetries: 0 })
      const e = await runExperiment({
        seed: SEED,
        runs: 1,
        variants: 0,
        model: () => new ModelDriver(provider, maxCalls),
      })
      return { e, requests: server.requests }
    } finally {
      await server.close()
    }
  }

  for (const kind of ['openai', 'anthropic'] as const) {
    it(`${kind}: a competent model plays the Web Search scenario; Concord misses nothing, every call a valid action`, async () => {
      const { e, requests } = await drive(kind, competent)
      const concord = e.outcomes.get('concord')![0]
      expect(concord).toMatchObject({ affectedMissed: 0, staleEvidenceUsed: 0, unfinished: 0 })
      for (const arm of ['concord', 'broadcast', 'chat'] as const) {
        const o = e.outcomes.get(arm)![0]
        expect(o!.model!.calls, arm).toBeGreaterThan(0)
        expect(o!.model!.wastedSteps, arm).toBe(0)
        // The provider's reported usage, not the estimator: 50 in and 7 out per call, as scripted.
        expect(o!.model).toMatchObject({ inputTokens: 50 * o!.model!.calls, outputTokens: 7 * o!.model!.calls })
      }
      // The prompt carried the member's context in its arm: Concord's brief, the broadcast, the thread.
      const prompts = requests.map(userText)
      expect(prompts.some((p) => p.includes('# Brief (rebuilt from the Concord harness'))).toBe(true)
      expect(prompts.some((p) => p.includes('D-1 "Search timeout" changed from v1 to v2'))).toBe(true)
      expect(requests.every((r) => r.body.tools.length === 1)).toBe(true)
    }, 120_000)
  }

  it('a model that answers garbage wastes its steps, counted by kind, and the run ends without a crash', async () => {
    let n = 0
    const garbage = (): ScriptedReply =>
      [
        { text: 'I would rather chat about it.' },
        { toolCalls: [{ name: 'act', arguments: '{"action": "deliver", "task": ' }] },
        { toolCalls: [{ name: 'act', arguments: { action: 'fly', task: 'T-1' } }] },
        { toolCalls: [{ name: 'act', arguments: { action: 'deliver', task: 'T-99' } }] },
      ][n++ % 4]!
    const { e } = await drive('openai-compatible', garbage, 200)
    for (const arm of ['concord', 'broadcast', 'chat'] as const) {
      const o = e.outcomes.get(arm)![0]
      expect(o!.model!.calls, arm).toBeGreaterThan(0)
      expect(o!.model!.wastedSteps, arm).toBe(o!.model!.calls)
      expect(Object.keys(o!.model!.wasted).sort(), arm).toEqual(expect.arrayContaining(['no_tool_call']))
      expect(Object.values(o!.model!.wasted).reduce((a, b) => a + b, 0)).toBe(o!.model!.wastedSteps)
      // Nothing got done, and the figures say so rather than a crash.
      expect(o!.unfinished, arm).toBe(3)
    }
  }, 120_000)

  it('refuses a provider without its key, naming the variable, and an agent without its key or unknown, running nothing', async () => {
    expect(() => modelProvider({ kind: 'anthropic', model: 'm', env: {} })).toThrow(/ANTHROPIC_API_KEY/)
    expect(() => modelProvider({ kind: 'openai-compatible', model: 'm', env: {} })).toThrow(/--base-url/)
    const out = mkdtempSync(join(tmpdir(), 'eval-cli-'))
    try {
      const cli = (args: string[], env: NodeJS.ProcessEnv) =>
        spawnSync(process.execPath, ['--import', 'tsx', 'eval/run.ts', ...args, '--out', out], {
          encoding: 'utf8',
          env,
        })
      const { OPENAI_API_KEY: _o, CODEX_API_KEY: _c, ...noOpenAi } = process.env
      const agent = cli(['--agent', 'codex'], noOpenAi)
      expect(agent.status).toBe(2)
      expect(agent.stderr).toMatch(/--agent codex needs OPENAI_API_KEY or CODEX_API_KEY in the environment/)
      expect(cli(['--agent', 'cursor'], process.env).stderr).toMatch(
        /--agent must be one of claude-code, codex, gemini/,
      )
      const { ANTHROPIC_API_KEY: _k, ...noKey } = process.env
      const key = cli(['--provider', 'anthropic', '--model', 'm'], noKey)
      expect(key.status).toBe(2)
      expect(key.stderr).toMatch(/needs ANTHROPIC_API_KEY in the environment/)
      expect(readdirSync(out)).toEqual([])
    } finally {
      rmSync(out, { recursive: true, force: true })
    }
  }, 60_000)
})
