/** Where a member runs, in small type beside its name when that is not this machine: "on runner1" (issue 36). */
import { effectiveRunner, LOCAL_RUNNER, runnerText } from '../../../../shared/runners'
import type { Member } from '../../../../shared/schemas'
import { useApp } from '../../stores/app-store'
import { runsOnWords } from './runner-draft'

export function RunsOn({ member }: { member: Member }) {
  const defaultRunner = useApp((s) => s.workspaceSettings?.defaultRunner) ?? LOCAL_RUNNER
  const runner = effectiveRunner(member, { defaultRunner })
  const words = runsOnWords(runner)
  if (!words) return null
  return (
    <span className="runs-on muted small" title={`Runs on ${runnerText(runner)}`} data-testid="runs-on">
      {words}
    </span>
  )
}
