/** Schema v07: reserved for Q (pinned mentions); filled in by that change. */
export const up = ``
