/** Steps of a test that run concurrently telling each other when they may go on. */

export interface Signal {
  /** Fulfilled once `give` is called. */
  readonly given: Promise<void>;
  readonly give: () => void;
}

export const signal = (): Signal => {
  let give: () => void = () => undefined;
  const given = new Promise<void>((resolve) => {
    give = resolve;
  });
  return { given, give };
};
