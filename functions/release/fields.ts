/** The release functions' reading of JSON they did not write: objects as records of unknowns. */
export type Fields = Readonly<Record<string, unknown>>;

export const isObject = (value: unknown): value is Fields =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
