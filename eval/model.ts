/**
 * Model-driven members (`npm run eval -- --provider openai|anthropic|openai-compatible --model M [--base-url URL]`):
 * the same arms, scenarios, human and ground truth as the scripted run, with the members' choices made by a real
 * model through Concord's own provider layer (runtime/providers: the official `openai` and `@anthropic-ai/sdk`
 * clients). At each step the member's context in its arm (concord: the real brief, its notices and the automatic
 * turn's message; broadcast: the broadcasts; chat: the thread window; any relay the human typed) and its own state
 * (its tasks, what its work is built against, what it last read) go into the prompt; the model answers with ONE
 * call of the tool `act`, choosing from the fixed action set the scripted member uses (start, work, realign,
 * deliver, reopen, acknowledge, check, wait). The reply is validated: no tool call, malformed arguments, an
 * unknown action or one not possible now is a wasted step (counted, never a crash). What an action does (a unit of
 * work, a build against the reading, a check of the artifact against the reading) is the same code as the
 * scripted member's: the model chooses, the world answers.
 *
 * Keys come from the environment only (OPENAI_API_KEY, ANTHROPIC_API_KEY, OPENAI_COMPATIBLE_API_KEY for
 * --provider openai-compatible, where it is optional) and are never printed.
 */
import {
  createProvider,
  ProviderError,
  type ModelProvider,
  type ProviderKind,
  type ToolSpec,
} from '../electron/main/runtime/providers'
import type { Arm, Ask } from './arms/arm'
import type { Scenario, ScenarioMember } from './scenarios'
import { normative, type Claim, type World } from './world'
import { at } from './at'

export const PROVIDERS: ProviderKind[] = ['openai', 'anthropic', 'openai-compatible']
/** Model calls per scenario run before every member gives up (a bound on cost when a model never finishes). */
export const DEFAULT_MAX_CALLS = 600
/** Wasted steps in a row after which a member gives up. */
export const GIVE_UP_AFTER = 5

export interface ModelOptions {
  kind: ProviderKind
  model: string
  baseURL?: string
  /** Default process.env; only the key of the provider's kind is read. */
  env?: NodeJS.ProcessEnv
  maxCalls?: number
  maxRetries?: number
}

/** What the model-driven members of one scenario run cost and wasted. */
export interface ModelUsage {
  calls: number
  wastedSteps: number
  /** From the provider's reported usage; null when it reported none for any call. */
  inputTokens: number | null
  outputTokens: number | null
  /** Why steps were wasted, e.g. { no_tool_call: 3, not_possible: 1 }. */
  wasted: Record<string, number>
}

export class ModelConfigError extends Error {
  readonly code = 'eval_model_config'
}

/** The key the provider needs from the environment, or a clear error naming the variable (never its value). */
export function modelProvider(o: ModelOptions): ModelProvider {
  const env = o.env ?? process.env
  if (!o.model) throw new ModelConfigError('--model is required with --provider')
  const keyVar =
    o.kind === 'openai' ? 'OPENAI_API_KEY' : o.kind === 'anthropic' ? 'ANTHROPIC_API_KEY' : 'OPENAI_COMPATIBLE_API_KEY'
  const apiKey = env[keyVar]?.trim() || undefined
  if (!apiKey && o.kind !== 'openai-compatible')
    throw new ModelConfigError(`--provider ${o.kind} needs ${keyVar} in the environment`)
  if (o.kind === 'openai-compatible' && !o.baseURL)
    throw new ModelConfigError('--provider openai-compatible needs --base-url (e.g. http://127.0.0.1:11434/v1)')
  return createProvider(
    { kind: o.kind, model: o.model, baseURL: o.baseURL, apiKey },
    { maxRetries: o.maxRetries ?? 2, env: {} },
  )
}

/** What makes the choices of a scenario run's model-driven members: a model (ModelDriver) or coding agents (eval/agent.ts AgentDriver). */
export interface Driver {
  readonly exhausted: boolean
  waste(why: string): void
  /** One step of member `member`: the `act` call's arguments text, or why the step was wasted. */
  ask(system: string, user: string, member: number): Promise<{ args: string } | { wasted: string }>
  report(): ModelUsage
  /** Ends what the driver started (agent processes); called once the scenario run is over. */
  close?(): Promise<void>
}

/** One model shared by every member of a scenario run, with its budget and counters. */
export class ModelDriver implements Driver {
  readonly usage: ModelUsage = { calls: 0, wastedSteps: 0, inputTokens: 0, outputTokens: 0, wasted: {} }
  private sawUsage = false
  private readonly maxCalls: number

  constructor(
    readonly provider: ModelProvider,
    maxCalls = DEFAULT_MAX_CALLS,
  ) {
    this.maxCalls = maxCalls
  }

  get exhausted(): boolean {
    return this.usage.calls >= this.maxCalls
  }

  waste(why: string): void {
    this.usage.wastedSteps++
    this.usage.wasted[why] = (this.usage.wasted[why] ?? 0) + 1
  }

  /** One call; the tool call's name and arguments text, or null (and a reason) when the reply had none. */
  async ask(system: string, user: string): Promise<{ args: string } | { wasted: string }> {
    this.usage.calls++
    try {
      const r = await this.provider.complete(
        { system, messages: [{ role: 'user', content: user }], tools: [ACT], maxTokens: 300 },
        () => {},
      )
      if (r.usage) {
        this.sawUsage = true
        this.usage.inputTokens! += r.usage.inputTokens
        this.usage.outputTokens! += r.usage.outputTokens
      }
      const call = r.toolCalls.find((c) => c.name === ACT.name)
      if (!call) return { wasted: r.toolCalls.length ? 'wrong_tool' : 'no_tool_call' }
      return { args: call.argumentsText }
    } catch (err) {
      // A key the provider refuses ends the run: every further call would fail the same way.
      if (err instanceof ProviderError && err.code === 'provider_auth') throw err
      return { wasted: err instanceof ProviderError ? err.code : 'provider_error' }
    }
  }

  /** The usage as reported: token counts null when the provider never reported any. */
  report(): ModelUsage {
    return this.sawUsage
      ? { ...this.usage, wasted: { ...this.usage.wasted } }
      : { ...this.usage, inputTokens: null, outputTokens: null, wasted: { ...this.usage.wasted } }
  }
}

export const ACTIONS = ['start', 'work', 'realign', 'deliver', 'reopen', 'acknowledge', 'check', 'wait'] as const
export type Action = (typeof ACTIONS)[number]

export const ACT: ToolSpec = {
  name: 'act',
  description: 'Your next action, exactly one per step.',
  parameters: {
    type: 'object',
    properties: {
      action: {
        type: 'string',
        enum: [...ACTIONS],
        description:
          'start: begin a to-do task of yours whose blockers are accepted. work: one more unit of work on your task in progress. ' +
          'realign: rebuild your work in progress against the decisions as you last read them (costs a unit of work). ' +
          'deliver: deliver your finished work in progress. reopen: take a delivered task of yours back into progress to rework it. ' +
          'acknowledge: confirm a task of yours already matches the current decisions. check: test or review the delivered artifact of a task you check, ' +
          'against the decisions as you read them, and submit your report. wait: do nothing this step.',
      },
      task: { type: 'string', description: 'The task key, e.g. T-3 (every action but wait).' },
    },
    required: ['action'],
    additionalProperties: false,
  },
}

const SYSTEM =
  'You are a member of a software team in a coordination experiment. Each step you get your context (what reached you: ' +
  'a brief, notices, messages, a team thread) and your state, and you choose ONE next action by calling the tool `act`. ' +
  'Decisions can change while you work: when the text that reached you says a decision your work depends on changed, your work must follow the new text. ' +
  'A step with no valid tool call is wasted.'

interface Work {
  task: number
  building: Map<number, string>
  progress: number
  effort: number
}

/** A member whose choices a model makes; the same interface as the scripted Member (member.ts). */
export class ModelMember {
  private readonly reading = new Map<number, string>()
  private work: Work | null = null
  /** What each own delivered task's artifact was built against (the member knows what it built). */
  private readonly asks: Ask[] = []
  private streak = 0
  private gaveUp = false
  private readonly spec: ScenarioMember

  constructor(
    readonly index: number,
    private readonly scenario: Scenario,
    private readonly world: World,
    private readonly arm: Arm,
    private readonly efforts: number[],
    private readonly driver: Driver,
  ) {
    this.spec = at(scenario.members, index)
    scenario.decisions.forEach((d, i) => this.reading.set(i, normative(d.statement)))
  }

  private get kind(): 'test' | 'review' | null {
    return this.spec.role === 'tester' ? 'test' : this.spec.role === 'reviewer' ? 'review' : null
  }
  private checks(t: number): boolean {
    const task = at(this.scenario.tasks, t)
    return this.kind === 'test' ? task.tester === this.index : this.kind === 'review' && task.reviewer === this.index
  }
  private own(t: number): boolean {
    return at(this.scenario.tasks, t).assignee === this.index
  }
  private unblocked(t: number): boolean {
    return at(this.scenario.tasks, t).blockedBy.every((b) => this.arm.status(b) === 'accepted')
  }
  private snapshot(t: number): Map<number, string> {
    return new Map(at(this.scenario.tasks, t).decisions.map((d) => [d, this.reading.get(d)!]))
  }
  private mine(t: number): boolean {
    const sha = this.world.delivered[t]
    return this.world.reports.some(
      (r) => r.task === t && r.author === this.index && r.kind === this.kind && r.sha === sha,
    )
  }

  wantsStep(): boolean {
    if (this.gaveUp || this.driver.exhausted) return false
    if (this.asks.length || this.arm.wakes(this.index)) return true
    // Finished work whose blockers a change un-accepted waits for them without asking the model every tick.
    if (this.work) return this.work.progress < this.work.effort || this.unblocked(this.work.task)
    return this.scenario.tasks.some(
      (_, i) =>
        (this.own(i) && this.unblocked(i) && (this.arm.status(i) === 'todo' || this.arm.status(i) === 'in_progress')) ||
        (this.checks(i) && this.arm.status(i) === 'delivered' && !this.mine(i)),
    )
  }

  /** The actions possible now, as `action T-n` (what the tool's validation accepts). */
  private possible(): Set<string> {
    const out = new Set<string>(['wait'])
    const key = (t: number) => `T-${t + 1}`
    this.scenario.tasks.forEach((_, t) => {
      const s = this.arm.status(t)
      if (this.own(t)) {
        if (!this.work && this.unblocked(t) && s === 'todo') out.add(`start ${key(t)}`)
        if (!this.work && this.unblocked(t) && (s === 'delivered' || s === 'in_progress')) out.add(`reopen ${key(t)}`)
        if (s !== 'todo' && s !== 'cancelled') out.add(`acknowledge ${key(t)}`)
      }
      if (this.checks(t) && s === 'delivered') out.add(`check ${key(t)}`)
    })
    if (this.work) {
      const w = this.work
      if (w.progress < w.effort) out.add(`work ${key(w.task)}`)
      out.add(`realign ${key(w.task)}`)
      if (w.progress >= w.effort && this.unblocked(w.task)) out.add(`deliver ${key(w.task)}`)
    }
    return out
  }

  private prompt(context: string[]): string {
    const tasks = this.scenario.tasks.flatMap((task, t) => {
      const role = this.own(t) ? 'yours' : this.checks(t) ? `you ${this.kind}` : null
      if (!role) return []
      const sha = this.world.delivered[t]
      const built = sha ? this.world.artifacts.get(sha)!.impl : null
      const report = this.world.reports.findLast((r) => r.task === t && r.author === this.index)
      return [
        {
          task: `T-${t + 1}`,
          title: task.title,
          role,
          status: this.arm.status(t),
          blockersAccepted: this.unblocked(t),
          decisions: task.decisions.map((d) => `D-${d + 1}`),
          delivered: sha ? sha.slice(0, 7) : null,
          ...(this.own(t) && built
            ? { deliveredBuiltAgainst: Object.fromEntries([...built].map(([d, s]) => [`D-${d + 1}`, s])) }
            : {}),
          ...(report
            ? {
                yourLastReport: {
                  on: report.sha.slice(0, 7),
                  verdict: report.verdict,
                  read: Object.fromEntries([...report.claims].map(([d, c]) => [`D-${d + 1}`, c.read])),
                },
              }
            : {}),
        },
      ]
    })
    const state = {
      you: `${this.spec.name} (${this.spec.role})`,
      yourReading: Object.fromEntries([...this.reading].map(([d, s]) => [`D-${d + 1}`, s])),
      workInProgress: this.work
        ? {
            task: `T-${this.work.task + 1}`,
            builtAgainst: Object.fromEntries([...this.work.building].map(([d, s]) => [`D-${d + 1}`, s])),
            done: this.work.progress,
            effort: this.work.effort,
          }
        : null,
      askedAbout: this.asks.map((a) => ({ task: `T-${a.task + 1}`, kind: a.kind })),
      tasks,
      possibleNow: [...this.possible()],
    }
    return `# Your context this step\n${context.join('\n\n') || '(nothing new reached you)'}\n\n# Your state\n\`\`\`json\n${JSON.stringify(state, null, 1)}\n\`\`\`\n\nCall act with one of possibleNow.`
  }

  async step(): Promise<void> {
    const seen = await this.arm.context(this.index)
    for (const [d, s] of seen.readings) this.reading.set(d, normative(s))
    this.asks.push(...seen.asks)
    const possible = this.possible()
    const reply = await this.driver.ask(SYSTEM, this.prompt(seen.text), this.index)
    const chosen = 'wasted' in reply ? reply : this.parse(reply.args, possible)
    if ('wasted' in chosen) {
      this.driver.waste(chosen.wasted)
      if (++this.streak >= GIVE_UP_AFTER) this.gaveUp = true
      return
    }
    this.streak = 0
    await this.perform(chosen.action, chosen.task)
  }

  private parse(args: string, possible: Set<string>): { action: Action; task: number } | { wasted: string } {
    let v: unknown
    try {
      v = JSON.parse(args)
    } catch {
      return { wasted: 'malformed_arguments' }
    }
    const o = v as { action?: unknown; task?: unknown }
    if (
      typeof v !== 'object' ||
      v === null ||
      typeof o.action !== 'string' ||
      !(ACTIONS as readonly string[]).includes(o.action)
    )
      return { wasted: 'unknown_action' }
    if (o.action === 'wait') return { action: 'wait', task: -1 }
    const m = typeof o.task === 'string' ? /^T-(\d+)$/.exec(o.task.trim()) : null
    if (!m || !possible.has(`${o.action} T-${m[1]}`)) return { wasted: 'not_possible' }
    return { action: o.action as Action, task: Number(m[1]) - 1 }
  }

  private dropAsks(task: number): void {
    for (let i = this.asks.length - 1; i >= 0; i--) if (at(this.asks, i).task === task) this.asks.splice(i, 1)
  }

  private async perform(action: Action, t: number): Promise<void> {
    if (action === 'wait') return
    if (action === 'work') {
      this.work!.progress++
      return
    }
    if (action === 'check') return this.check(t)
    if (action === 'start' || action === 'reopen') {
      if (action === 'start') await this.arm.start(this.index, t)
      else if (this.arm.status(t) === 'delivered') await this.arm.reopen(this.index, t)
      this.work = {
        task: t,
        building: this.snapshot(t),
        progress: 0,
        effort: action === 'start' ? at(this.efforts, t) : Math.max(1, at(this.efforts, t) - 1),
      }
      await this.arm.acknowledge(this.index, t)
    } else if (action === 'realign') {
      const w = this.work!
      w.building = this.snapshot(t)
      w.progress = Math.max(0, w.progress - 1)
      await this.arm.acknowledge(this.index, t)
    } else if (action === 'deliver') {
      const a = this.world.build(t, this.work!.building)
      this.world.delivered[t] = a.sha
      this.work = null
      await this.arm.deliver(this.index, t, a.sha)
    } else await this.arm.acknowledge(this.index, t)
    this.dropAsks(t)
  }

  private async check(t: number): Promise<void> {
    const kind = this.kind!
    const sha = this.world.delivered[t]!
    const artifact = this.world.artifacts.get(sha)!
    const ask = this.asks.find((a) => a.task === t && a.kind === 'reverify')
    const staleOnly = ask?.staleDecisions ?? null
    const prev = this.world.reports.findLast((r) => r.task === t && r.kind === kind && r.author === this.index)
    const claims = new Map<number, Claim>()
    for (const d of at(this.scenario.tasks, t).decisions) {
      const old = prev?.sha === sha ? prev.claims.get(d) : undefined
      if (staleOnly !== null && old && !staleOnly.includes(d)) claims.set(d, { ...old, carried: true })
      else
        claims.set(d, {
          read: this.reading.get(d)!,
          pass: artifact.impl.get(d) === this.reading.get(d),
          carried: false,
        })
    }
    const r = this.world.addReport({
      task: t,
      author: this.index,
      kind,
      verdict: [...claims.values()].every((c) => c.pass) ? 'pass' : 'fail',
      sha,
      basis: this.snapshot(t),
      claims,
    })
    this.dropAsks(t)
    await this.arm.report(this.index, r)
  }
}
