/**
 * One invocation of a checked function (a version for the hook, a `live` alias for the
 * heartbeat): the JSON it answers, or why there is none, named by status, name and code only.
 */
import { InvokeCommand, type LambdaClient } from '@aws-sdk/client-lambda';
import { causeOf, safeName } from '../../shared/release/pre-traffic-contract';
import { isObject } from './fields';

/** The JSON of a payload, or undefined when it is not JSON. */
const jsonOf = (payload: Uint8Array | undefined): { value: unknown } | undefined => {
  try {
    return { value: JSON.parse(Buffer.from(payload ?? new Uint8Array()).toString('utf8')) };
  } catch {
    return undefined;
  }
};

/**
 * Invokes `functionName` (a qualified ARN) with `event` within `boundMs`; the answer's JSON, or
 * the cause of a failure.
 */
export const invokeForAnswer = async (
  lambda: LambdaClient,
  functionName: string,
  event: unknown,
  boundMs: number,
): Promise<{ answer: unknown } | { cause: string }> => {
  if (boundMs <= 0) return { cause: 'no time left to invoke it' };
  const abortSignal = AbortSignal.timeout(boundMs);
  try {
    const result = await lambda.send(
      new InvokeCommand({
        FunctionName: functionName,
        InvocationType: 'RequestResponse',
        Payload: JSON.stringify(event),
      }),
      { abortSignal },
    );
    const json = jsonOf(result.Payload);
    if (result.FunctionError !== undefined) {
      const errorType = isObject(json?.value) ? safeName(json.value.errorType) : undefined;
      const kind = safeName(result.FunctionError) ?? 'Unhandled';
      return {
        cause: `function error ${kind}${errorType === undefined ? '' : ` (${errorType})`}`,
      };
    }
    if (json === undefined) return { cause: 'answer is not JSON' };
    return { answer: json.value };
  } catch (error) {
    if (abortSignal.aborted) return { cause: `no answer within ${boundMs} ms` };
    return { cause: `invocation failed (${causeOf(error)})` };
  }
};
