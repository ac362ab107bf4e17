/** A goal judged as a ratio of two figures of the same run, in every repetition. */
export interface RatioGoal {
  /** One ratio per repetition. */
  readonly ratios: number[];
  readonly min: number;
  readonly max: number;
  readonly goal: number;
  /** At most `goal` in every repetition. */
  readonly met: boolean;
}

export const ratioGoal = (ratios: number[], goal: number): RatioGoal => ({
  ratios,
  min: Math.min(...ratios),
  max: Math.max(...ratios),
  goal,
  met: ratios.length > 0 && ratios.every((r) => r <= goal),
});
