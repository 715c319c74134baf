/** The code highlighter (highlight.js with its common languages, about 200 KB): loaded after the first screen, see loadHighlighter. */
import { common, createLowlight } from 'lowlight'

export const lowlight = createLowlight(common)
