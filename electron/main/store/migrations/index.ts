import * as m001 from './001-harness'
import * as m002 from './002-sessions'
import * as m003 from './003-trust'
import * as m004 from './004-agents'
import * as m005 from './005-worktrees'
import * as m006 from './006-agent-settings'

/** Ordered schema migrations; entry i brings the database from user_version i to i + 1. */
export const migrations: { name: string; up: string }[] = [
  { name: '001-harness', up: m001.up },
  { name: '002-sessions', up: m002.up },
  { name: '003-trust', up: m003.up },
  { name: '004-agents', up: m004.up },
  { name: '005-worktrees', up: m005.up },
  { name: '006-agent-settings', up: m006.up },
]
