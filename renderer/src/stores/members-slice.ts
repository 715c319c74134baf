import { sessionOf } from './workspace-slice'
import type { MembersSlice, SliceCreator } from './types'

export const createMembersSlice: SliceCreator<MembersSlice> = (set) => ({
  members: {},
  memberOrder: [],
  applyMember(member) {
    set((s) => {
      if (member.workspaceId !== s.workspaceId) return {}
      // Archived: out of the team (its row stays for names in history); restored: back in.
      if (member.archivedAt) {
        const order = s.memberOrder.filter((id) => id !== member.id)
        return {
          members: { ...s.members, [member.id]: member },
          memberOrder: order,
          selectedMemberId: s.selectedMemberId === member.id ? (order[0] ?? null) : s.selectedMemberId,
        }
      }
      const isNew = !s.memberOrder.includes(member.id)
      return {
        members: { ...s.members, [member.id]: member },
        memberOrder: isNew ? [...s.memberOrder, member.id] : s.memberOrder,
        sessions: s.sessions[member.id] ? s.sessions : { ...s.sessions, [member.id]: sessionOf(member.id) },
        selectedMemberId: s.selectedMemberId ?? member.id,
      }
    })
  },
})
