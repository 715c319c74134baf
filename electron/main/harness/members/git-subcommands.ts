/**
 * The commands git itself knows (git 2.39's `git --list-cmds=main`, and those added since): any other word in the
 * subcommand's place is an alias or a `git-<name>` program, which may run anything (`git config alias.p push`, then
 * `git p`), so a deny rule for a git subcommand asks for it (shell-commands.ts).
 */
export const GIT_SUBCOMMANDS: ReadonlySet<string> = new Set(
  `
  add add--interactive am annotate apply archive bisect bisect--helper blame branch bugreport bundle cat-file
  check-attr check-ignore check-mailmap check-ref-format checkout checkout--worker checkout-index cherry
  cherry-pick clean clone column commit commit-graph commit-tree config count-objects credential
  credential-cache credential-cache--daemon credential-store daemon describe diagnose diff diff-files
  diff-index diff-tree difftool difftool--helper env--helper fast-export fast-import fetch fetch-pack
  filter-branch fmt-merge-msg for-each-ref for-each-repo format-patch fsck fsck-objects fsmonitor--daemon gc
  get-tar-commit-id grep hash-object help hook http-backend http-fetch http-push imap-send index-pack init
  init-db instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge
  merge-base merge-file merge-index merge-octopus merge-one-file merge-ours merge-recursive
  merge-recursive-ours merge-recursive-theirs merge-resolve merge-subtree merge-tree mergetool mktag mktree
  multi-pack-index mv name-rev notes pack-objects pack-redundant pack-refs patch-id pickaxe prune prune-packed
  pull push quiltimport range-diff read-tree rebase receive-pack reflog remote remote-ext remote-fd remote-ftp
  remote-ftps remote-http remote-https repack replace request-pull rerere reset restore rev-list rev-parse
  revert rm send-pack sh-i18n--envsubst shell shortlog show show-branch show-index show-ref sparse-checkout
  stage stash status stripspace submodule submodule--helper subtree switch symbolic-ref tag unpack-file
  unpack-objects update-index update-ref update-server-info upload-archive upload-archive--writer upload-pack
  var verify-commit verify-pack verify-tag version web--browse whatchanged worktree write-tree
  backfill last-modified refs replay repo
  `
    .trim()
    .split(/\s+/),
)
