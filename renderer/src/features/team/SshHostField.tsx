/**
 * The SSH host of "Runs on", with a Check that asks the server whether a member could run there (runner.check: the
 * host reached, its git and the agent's command) and says the answer in one line under the field (issue 36).
 */
import { useState } from 'react'
import type { RunnerCheck } from '../../../../shared/runners'
import { asClientError } from '../../api/errors'
import { RunButton } from '../../components/RunButton'
import { ErrorText, Field } from '../../components/ui'
import { useAction } from '../../lib/use-action'
import { useApp } from '../../stores/app-store'

/** "Reached runner1: git 2.39.5, opencode at /usr/local/bin/opencode". */
export function checkAnswer(host: string, agent: string | undefined, r: RunnerCheck): string {
  // A command given as a path is found as itself: its path once says it.
  const found = !r.agent ? '' : agent?.includes('/') ? `, ${r.agent} found` : `, ${agent} at ${r.agent}`
  return `Reached ${host}: git ${r.git}${found}`
}

interface Answer {
  /** The host and agent asked about: an answer is shown only while the form still says the same. */
  asked: string
  ok: boolean
  text: string
}

/**
 * `agent`: the member's agent command, asked about with the host (the workspace's default names none). The answer is
 * cleared when the host or the agent changes, so the line under the field is always about what the field says.
 */
export function SshHostField({
  host,
  agent,
  onChange,
}: {
  host: string
  agent?: string
  onChange(host: string): void
}) {
  const api = useApp((s) => s.api)
  const asked = `${host.trim()}\n${agent ?? ''}`
  const [answer, setAnswer] = useState<Answer | null>(null)
  // Dropped, not just hidden, once the field says something else: typing the old host back does not bring it back.
  // An answer to an earlier question that arrives later is dropped here too.
  if (answer && answer.asked !== asked) setAnswer(null)
  const check = useAction(async () => {
    try {
      const r = await api.call('runner.check', { runner: { kind: 'ssh', host }, ...(agent ? { agent } : {}) })
      setAnswer({ asked, ok: true, text: checkAnswer(host.trim(), agent, r) })
    } catch (err) {
      setAnswer({ asked, ok: false, text: asClientError(err).message })
    }
  })
  const shown = answer?.asked === asked ? answer : null
  return (
    <>
      <Field label="SSH host" hint="A name from your ~/.ssh/config, a host, or user@host.">
        <div className="input-with-button">
          <input
            value={host}
            placeholder="runner1"
            spellCheck={false}
            onChange={(e) => onChange(e.target.value)}
            aria-label="SSH host"
          />
          <RunButton
            action={check}
            title="Whether Concord reaches the host, git is there and the agent's command is on its PATH"
            testId="runner-check"
          >
            {check.pending ? 'Checking…' : 'Check'}
          </RunButton>
        </div>
      </Field>
      {shown?.ok && (
        <div className="small check-ok" role="status" data-testid="runner-check-answer">
          {shown.text}
        </div>
      )}
      {shown && !shown.ok && <ErrorText error={shown.text} />}
    </>
  )
}
