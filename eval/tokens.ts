/**
 * The one token estimator of the experiment: ceil(characters / 4), the usual rule of thumb for English text under
 * the GPT and Claude tokenizers. Every arm's coordination text is counted with it, so the ratios between arms hold
 * even where the absolute numbers are off by a tokenizer's difference.
 */
export const tokens = (text: string): number => Math.ceil(text.length / 4)
