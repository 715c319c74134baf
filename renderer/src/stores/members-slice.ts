import { sessionOf } from './workspace-slice'
import type { MembersSlice, SliceCreator } from './types'

export const createMembersSlice: SliceCreator<MembersSlice> = (set) => ({
  members: {},
  memberOrder: [],
  applyMember(member) {
    set((s) => {
      if (member.workspaceId !== s.workspaceId) return {}
      const isNew = !s.members[member.id]
      return {
        members: { ...s.members, [member.id]: member },
        memberOrder: isNew ? [...s.memberOrder, member.id] : s.memberOrder,
        sessions: s.sessions[member.id] ? s.sessions : { ...s.sessions, [member.id]: sessionOf(member.id) },
        selectedMemberId: s.selectedMemberId ?? member.id,
      }
    })
  },
})
