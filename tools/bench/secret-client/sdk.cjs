'use strict';
/* global exports */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run and bundled as is */
/**
 * (A, A2) AWS SDK v3 Secrets Manager client. Endpoint from BENCH_SDK_ENDPOINT when set (client
 * config), otherwise from the environment (AWS_ENDPOINT_URL_SECRETS_MANAGER); credentials from
 * AWS_ACCESS_KEY_ID / AWS_SECRET_ACCESS_KEY / AWS_SESSION_TOKEN, region from AWS_REGION.
 */
const { GetSecretValueCommand, SecretsManagerClient } = require('@aws-sdk/client-secrets-manager');

exports.getSecretJson = async (secretId) => {
  const region = process.env.AWS_REGION;
  const endpoint = process.env.BENCH_SDK_ENDPOINT;
  const client = new SecretsManagerClient(endpoint ? { region, endpoint } : { region });
  const output = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
  return JSON.parse(output.SecretString);
};
