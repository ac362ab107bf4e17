/** A bare handler: the floor of module evaluation in a fresh process (cold-start benchmark). */
export const handler = (): Promise<{ statusCode: number; body: string }> =>
  Promise.resolve({ statusCode: 200, body: '{}' });
