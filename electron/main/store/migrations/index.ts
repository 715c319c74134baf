import * as m001 from './001-harness'
import * as m002 from './002-sessions'
import * as m003 from './003-trust'
import * as m004 from './004-agents'
import * as m005 from './005-worktrees'
import * as m006 from './006-agent-settings'
import * as m007 from './007-pinned-refs'
import * as m008 from './008-scale'
import * as m009 from './009-archive'
import * as m010 from './010-search'
import * as m011 from './011-loop'
import * as m012 from './012-pin-totals'
import * as m013 from './013-approval-policy'
import * as m014 from './014-tree-state'
import * as m015 from './015-report-counts'
import * as m016 from './016-search-prefix'
import * as m017 from './017-impact-record'
import * as m018 from './018-superseded'
import * as m019 from './019-follow-ups'
import * as m020 from './020-search-records'
import * as m021 from './021-merged-base'
import * as m022 from './022-key-ref'
import * as m023 from './023-base-moves'
import * as m024 from './024-merge-queue'
import * as m025 from './025-claim-verdicts'
import * as m026 from './026-diff-comments'
import * as m027 from './027-pull-requests'
import * as m028 from './028-attempts'
import * as m029 from './029-task-plans'
import * as m030 from './030-agent-key-variable'
import * as m031 from './031-turn-undo'
import * as m032 from './032-enum-words'
import * as m033 from './033-mcp-off'
import * as m034 from './034-money'
import * as m035 from './035-step-images'
import * as m036 from './036-runners'

/** A schema migration: its SQL, and whether it edits a table's definition in sqlite_schema (032; see the runner). */
export interface Migration {
  name: string
  up: string
  writesSchema?: boolean
}

/** Ordered schema migrations; entry i brings the database from user_version i to i + 1. */
export const migrations: Migration[] = [
  { name: '001-harness', up: m001.up },
  { name: '002-sessions', up: m002.up },
  { name: '003-trust', up: m003.up },
  { name: '004-agents', up: m004.up },
  { name: '005-worktrees', up: m005.up },
  { name: '006-agent-settings', up: m006.up },
  { name: '007-pinned-refs', up: m007.up },
  { name: '008-scale', up: m008.up },
  { name: '009-archive', up: m009.up },
  { name: '010-search', up: m010.up },
  { name: '011-loop', up: m011.up },
  { name: '012-pin-totals', up: m012.up },
  { name: '013-approval-policy', up: m013.up },
  { name: '014-tree-state', up: m014.up },
  { name: '015-report-counts', up: m015.up },
  { name: '016-search-prefix', up: m016.up },
  { name: '017-impact-record', up: m017.up },
  { name: '018-superseded', up: m018.up },
  { name: '019-follow-ups', up: m019.up },
  { name: '020-search-records', up: m020.up },
  { name: '021-merged-base', up: m021.up },
  { name: '022-key-ref', up: m022.up },
  { name: '023-base-moves', up: m023.up },
  { name: '024-merge-queue', up: m024.up },
  { name: '025-claim-verdicts', up: m025.up },
  { name: '026-diff-comments', up: m026.up },
  { name: '027-pull-requests', up: m027.up },
  { name: '028-attempts', up: m028.up },
  { name: '029-task-plans', up: m029.up },
  { name: '030-agent-key-variable', up: m030.up },
  { name: '031-turn-undo', up: m031.up },
  { name: '032-enum-words', up: m032.up, writesSchema: m032.writesSchema },
  { name: '033-mcp-off', up: m033.up },
  { name: '034-money', up: m034.up },
  { name: '035-step-images', up: m035.up },
  { name: '036-runners', up: m036.up },
]
