/**
 * The images waiting in each member's composer (issue 35), by member id: switching members keeps what was attached to
 * each, as the typed draft is kept. Not persisted (screenshots are megabytes; the draft's text is what survives a reload).
 */
import { create } from 'zustand'
import type { Attachment } from '../lib/image-files'

interface AttachmentsState {
  byMember: Record<string, Attachment[]>
  add(memberId: string, images: Attachment[]): void
  remove(memberId: string, ids: string[]): void
}

const none: Attachment[] = []

export const useAttachments = create<AttachmentsState>((set) => ({
  byMember: {},
  add: (memberId, images) =>
    set((s) => ({ byMember: { ...s.byMember, [memberId]: [...(s.byMember[memberId] ?? none), ...images] } })),
  remove: (memberId, ids) =>
    set((s) => ({
      byMember: { ...s.byMember, [memberId]: (s.byMember[memberId] ?? none).filter((a) => !ids.includes(a.id)) },
    })),
}))

/** The member's waiting images (one stable empty list when there are none). */
export const attachmentsOf = (memberId: string) => (s: AttachmentsState) => s.byMember[memberId] ?? none
