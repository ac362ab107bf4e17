/**
 * The preflight's first question (tools/release/preflight.ts): which of the regions the account
 * has not enabled. An opt-in region (me-central-1, …) must be enabled for the account before
 * anything can be created there, and its own endpoints refuse until it is, so EC2 is asked from
 * us-east-1, a region every account has.
 */
import { DescribeRegionsCommand, EC2Client } from '@aws-sdk/client-ec2';
import { clientConfig } from './preflight-common';

/** The region EC2 is asked from: enabled in every account. */
const ALWAYS_ENABLED = 'us-east-1';

/**
 * The regions of `regions` not usable by the account, each with why: not enabled, or unknown to
 * EC2. Throws the SDK's error when EC2 cannot be asked.
 */
export const unusableRegions = async (
  regions: readonly string[],
): Promise<Map<string, 'not enabled' | 'unknown'>> => {
  const ec2 = new EC2Client(clientConfig(ALWAYS_ENABLED));
  try {
    const { Regions: known = [] } = await ec2.send(
      new DescribeRegionsCommand({ AllRegions: true, RegionNames: [...regions] }),
    );
    const unusable = new Map<string, 'not enabled' | 'unknown'>();
    for (const region of regions) {
      const status = known.find(({ RegionName }) => RegionName === region)?.OptInStatus;
      if (status === undefined) unusable.set(region, 'unknown');
      else if (status === 'not-opted-in') unusable.set(region, 'not enabled');
    }
    return unusable;
  } finally {
    ec2.destroy();
  }
};

/** The problem of an unusable region: what to do. */
export const unusableMessage = (region: string, why: 'not enabled' | 'unknown'): string =>
  why === 'not enabled'
    ? `an opt-in region not enabled for this account: enable it (AWS console, Account, "AWS Regions"; or aws account enable-region --region-name ${region}) and wait until it is enabled; its other checks skipped`
    : `not a region EC2 in ${ALWAYS_ENABLED} knows: check the region, and the account's partition; its other checks skipped`;
