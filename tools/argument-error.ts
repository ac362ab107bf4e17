/**
 * What `node:util`'s parseArgs says of a bad command line, on one line: the tools print one
 * line and exit 2. Its TypeError may come from another realm (Jest's), so no `instanceof`.
 */
export const argumentComplaint = (error: unknown): string => {
  const message = (error as { message?: unknown } | null)?.message;
  return typeof message === 'string' && message.trim() !== ''
    ? message.replace(/\s*\n\s*/g, ' ')
    : 'invalid arguments';
};
