import type { Runtime } from '../runtime/runtime'
import type { Handlers } from './handlers'

type SessionMethods =
  | 'sessions.send'
  | 'sessions.get'
  | 'sessions.list'
  | 'sessions.interrupt'
  | 'sessions.reset'
  | 'sessions.restart'
  | 'sessions.approve'
  | 'sessions.retry'
  | 'sessions.undoTurn'

export function runtimeHandlers(runtime: Runtime): Pick<Handlers, SessionMethods> {
  return {
    'sessions.send': (p) => runtime.send(p),
    'sessions.get': (p) => runtime.get(p),
    'sessions.list': (p) => runtime.list(p.workspaceId),
    'sessions.interrupt': (p) => runtime.interrupt(p.memberId),
    'sessions.reset': (p) => runtime.reset(p.memberId),
    'sessions.restart': (p) => runtime.restart(p.memberId),
    'sessions.approve': (p) => runtime.approve(p),
    'sessions.retry': (p) => runtime.retry(p.memberId),
    'sessions.undoTurn': (p) => runtime.undoTurn(p.stepId),
  }
}
