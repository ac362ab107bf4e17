/** The Lambda context every bench invocation gets: data only, so a child's bundle stays small. */
import type { Context } from 'aws-lambda';

export const benchContext = (): Context =>
  ({
    awsRequestId: 'bench',
    functionName: 'bench',
    functionVersion: '$LATEST',
    invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:bench',
    memoryLimitInMB: '1024',
    logGroupName: 'bench',
    logStreamName: 'bench',
    callbackWaitsForEmptyEventLoop: true,
    getRemainingTimeInMillis: () => 29_000,
  }) as Context;
