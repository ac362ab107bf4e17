'use strict';
/* global exports */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run and bundled as is */
/**
 * (B) Powertools Parameters getSecret: its default SecretsProvider builds its own SDK client,
 * so the endpoint comes from AWS_ENDPOINT_URL_SECRETS_MANAGER.
 */
const { getSecret } = require('@aws-lambda-powertools/parameters/secrets');

exports.getSecretJson = (secretId) => getSecret(secretId, { transform: 'json' });
