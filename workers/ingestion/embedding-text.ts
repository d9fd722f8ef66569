/**
 * What is embedded for a chunk: the document's title and the chunk's heading above its text.
 * A passage rarely repeats the words that name its topic ("Thread Safety", "The magic files"),
 * yet questions use them; embedding them with the passage lets a question about the topic find
 * it. Only the vector sees this: the stored content, keyword search and citations stay the
 * chunk's own text. eval/results.md measures the difference.
 */
export function embeddingText(documentTitle: string | null, heading: string | null | undefined, content: string): string {
  const context = [documentTitle, heading].filter((part): part is string => Boolean(part?.trim())).join("\n");
  return context ? `${context}\n\n${content}` : content;
}
