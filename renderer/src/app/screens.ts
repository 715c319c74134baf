/** The workspace screen's chunk (app/Workspace.tsx): App renders it lazily, main.tsx starts loading it early. */
export const loadWorkspaceScreen = () => import('./Workspace')
