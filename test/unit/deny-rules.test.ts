/**
 * Deny rules mean what they say (issue 32): a deny prefix matches any command the line runs, as the shell reads it
 * (harness/members/shell-commands.ts), and a line Concord cannot read with confidence asks. Under `auto`, so the
 * policy itself would run everything: only the rule decides.
 */
import { describe, expect, it } from 'vitest'
import {
  describeAcpCall,
  needsHuman,
  suggestedRule,
  type PolicyRule,
} from '../../electron/main/harness/members/approval-policy'
import { commandsRun, prefixMatch } from '../../electron/main/harness/members/shell-commands'

const on = { available: true }
const rule = (commandPrefix: string): PolicyRule => ({
  effect: 'deny',
  tool: 'run_command',
  commandPrefix,
  pathGlob: null,
  memberId: null,
})
const decide = (prefix: string, command: string) => {
  const a = needsHuman(
    'auto',
    [rule(prefix)],
    { tool: 'run_command', effect: 'command', asksUnderAsk: true, command },
    on,
  )
  return a.deny ? 'deny' : a.ask ? 'ask' : 'run'
}

describe('a deny rule matches the command wherever the shell runs it', () => {
  it.each([
    // The spellings of `touch M`, each of which ran before.
    ['touch', 'touch M'],
    ['touch', '{ touch M; }'],
    ['touch', 'if true; then touch M; fi'],
    ['touch', '/usr/bin/touch M'],
    ['touch', 'env touch M'],
    ['touch', '"touch" M'],
    ['touch', "sh -c 'touch M'"],
    ['touch', 'X=1 touch M'],
    ['touch', 'command touch M'],
    ['touch', 'exec touch M'],
    ['touch', 'time touch M'],
    ['touch', '! touch M'],
    ['touch', 'tou\\ch M'],
    ['touch', "'tou'ch M"],
    ['touch', 'env -i X=1 /usr/bin/touch M'],
    ['touch', 'for f in a; do touch M; done'],
    ['touch', 'while true; do touch M; break; done'],
    ['touch', 'case x in x) touch M;; esac'],
    ['touch', 'f() { touch M; }; f'],
    ['touch', 'cat <(touch M)'],
    ['touch', 'echo > "$(touch M)"'],
    ['touch', 'echo ${X:-$(touch M)}'],
    ['touch', "bash -lc 'touch M'"],
    ['touch', 'env bash -c \'sh -c "touch M"\''],
    ['touch', "bash -o pipefail -c 'touch M'"],
    ['touch', 'eval touch M'],
    ['touch', "trap 'touch M' EXIT"],
    ['touch', 'nohup nice -n 5 touch M'],
    ['touch', 'timeout 5 touch M'],
    ['touch', 'timeout -k 5 --signal TERM 30s /usr/bin/touch M'],
    ['touch', 'sudo -u root touch M'],
    ['touch', 'echo M | xargs touch'],
    ['touch', 'find . -maxdepth 0 -exec touch M ;'],
    ['touch', "watch -n 1 'touch M'"],
    // The spellings of `git push`.
    ['git push', 'git push'],
    ['git push', 'echo $(git push)'],
    ['git push', 'echo "$(git push)"'],
    ['git push', '(git push)'],
    ['git push', 'git -C . push'],
    ['git push', 'git -c x=y push origin main'],
    ['git push', 'git --git-dir=.git --no-pager push'],
    ['git push', 'bash -c "git push"'],
    ['git push', 'echo `git push`'],
    ['git push', 'echo `echo \\`git push\\``'],
    ['git push', 'true; git push'],
    ['git push', 'true && git push'],
    ['git push', 'false || git push'],
    ['git push', 'true | git push'],
    ['git push', 'true &\ngit push'],
    ['git push', 'true\ngit push'],
    ['git push', '/usr/bin/git push --force'],
    ['git push', "'git' 'push'"],
    ['git push', 'env GIT_TRACE=1 git push'],
    ['git push', 'cd /tmp && git push'],
    ['git push', '/usr/lib/git-core/git-push origin'],
    ['git push', 'command git push -v'],
    ['git push', 'env git push -S'],
    // Not valid shell, but what Concord could read names the rule: refused rather than asked.
    ['git push', 'echo $(git push'],
  ])('deny `%s` refuses %j', (prefix, command) => {
    expect(decide(prefix, command)).toBe('deny')
  })

  it.each([
    // What it does not name runs as before.
    ['touch', 'echo touch M'],
    ['touch', 'ls -la'],
    ['touch', 'cat touch.txt'],
    ['touch', 'git commit -m "touch M"'],
    ['touch', 'command -v touch'],
    ['touch', 'timeout 60 grep -r touch src'],
    ['git push', 'git pull'],
    ['git push', 'git log --grep push'],
    ['git push', 'echo git push'],
    ['git push', 'git -C . status'],
    ['git push', 'npm test && git status'],
    ['git push', 'bash -lc "npm test"'],
    ['git push', 'cd "$DIR" && npm test'],
    ['git push', 'git commit -m "$MSG"'],
    ['git push', './script.sh'],
    ['git push', `python3 -c "print('hello')"`],
  ])('deny `%s` runs %j', (prefix, command) => {
    expect(decide(prefix, command)).toBe('run')
  })

  it.each([
    // What Concord cannot read with confidence asks: never silently allowed.
    ['git push', '$X push'],
    ['git push', '"$GIT" push'],
    ['git push', 'git $SUB'],
    ['git push', 'eval "$CMD"'],
    ['git push', 'eval $(cat f)'],
    ['git push', 'bash -c "$CMD"'],
    ['git push', 'echo git push | sh'],
    ['git push', 'bash <<EOF\ngit push\nEOF'],
    ['git push', 'git -c alias.p=push p'],
    ['git push', 'echo $(true'],
    ['git push', 'if true; then'],
    ['git push', '$(echo git) push'],
    ['git push', 'g*t push'],
    ['touch', '{touch,x} M'],
    ['touch', 'env -S "touch M"'],
    ['touch', 'env -iS"touch M"'],
    ['git push', "bash /dev/stdin <<< 'git push'"],
    ['git push', "source /dev/stdin <<< 'git push'"],
    ['git push', '. <(echo git push)'],
    // An alias or a git-<name> program in git's subcommand place may run anything.
    ['git push', 'git config alias.p push && git p'],
    ['git push', 'git p origin main'],
    // Code handed to an interpreter is not shell: when it names the rule's words, it asks.
    ['touch', `python3 -c "import os; os.system('touch M')"`],
    ['git push', `node -e "require('child_process').execFileSync('git', ['push'])"`],
    ['git push', 'python3 - <<EOF\nimport subprocess\nsubprocess.run("git push", shell=True)\nEOF'],
    ['git push', `env perl -e 'system("git push")'`],
  ])('deny `%s` asks for %j', (prefix, command) => {
    expect(decide(prefix, command)).toBe('ask')
  })

  it('says why it asks, naming the rule', () => {
    const a = needsHuman(
      'auto',
      [rule('git push')],
      { tool: 'run_command', effect: 'command', asksUnderAsk: true, command: 'eval "$CMD"' },
      on,
    )
    expect(a).toEqual({
      ask: true,
      deny: false,
      mayBeDenied: true,
      why: 'Concord cannot tell whether the rule "deny run_command `git push …`" (for the team) refuses it: eval runs a string that is only known when it runs',
    })
  })

  it('offers no "Always allow" rule for a call a deny rule may refuse: the allow would never reach it', () => {
    const call = { tool: 'run_command', effect: 'command' as const, asksUnderAsk: true, command: 'git p origin' }
    const a = needsHuman('auto', [rule('git push')], call, on)
    expect(a.ask).toBe(true)
    expect(suggestedRule(call, a)).toEqual({
      tool: 'run_command',
      noRule: 'a deny rule may refuse this command, so Concord offers no rule for it',
    })
    expect(suggestedRule(call)).toEqual({ tool: 'run_command', commandPrefix: 'git p' })
  })

  it('says when it asks for code handed to an interpreter', () => {
    const call = { tool: 'run_command', effect: 'command' as const, asksUnderAsk: true }
    const a = needsHuman('auto', [rule('touch')], { ...call, command: `python3 -c "os.system('touch M')"` }, on)
    expect(a.why).toBe(
      'Concord cannot tell whether the rule "deny run_command `touch …`" (for the team) refuses it: it hands an interpreter code that names it',
    )
  })

  it('holds for an agent’s command as it arrives over ACP (Codex: ["bash","-lc",…])', () => {
    const acp = (command: string[]) =>
      describeAcpCall({ kind: 'execute', title: 'run', rawInput: { command } }, { root: '/t', concordTools: [] })
    expect(needsHuman('auto', [rule('touch')], acp(['bash', '-lc', '{ touch M; }']), on).deny).toBe(true)
    expect(needsHuman('auto', [rule('git push')], acp(['bash', '-lc', 'git -C . push']), on).deny).toBe(true)
    expect(needsHuman('auto', [rule('git push')], acp(['bash', '-lc', 'npm test']), on).ask).toBe(false)
  })

  it('without a deny rule an unreadable command runs under auto as before', () => {
    const a = needsHuman(
      'auto',
      [],
      { tool: 'run_command', effect: 'command', asksUnderAsk: true, command: '$X push' },
      on,
    )
    expect(a.ask || a.deny).toBe(false)
  })

  it('reads every command the line runs, as words without quoting', () => {
    expect(commandsRun(`X=1 env -u Y bash -lc 'git -C . push' && echo "a b" | $P`)).toEqual({
      commands: [
        ['env', '-u', 'Y', 'bash', '-lc', 'git -C . push'],
        ['bash', '-lc', 'git -C . push'],
        ['git', '-C', '.', 'push'],
        ['git', 'push'],
        ['echo', 'a b'],
        [null],
      ],
      unsure: 'the program it runs is only known when it runs',
      code: [],
      gitOthers: [],
    })
    expect(prefixMatch(commandsRun('git $X'), 'git push')).toBe('maybe')
    expect(prefixMatch(commandsRun('git'), 'git push')).toBe('no')
  })
})
