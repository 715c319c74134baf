export function checkPackagedApp(resourcesDir: string, needed: { archived: string[]; unpacked: string[] }): string[]
export function packagedResources(distDir: string): string[]
