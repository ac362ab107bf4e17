'use strict';
/* global exports */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run and bundled as is */
/**
 * (C) Client side of the AWS Parameters and Secrets Lambda Extension: GET
 * /secretsmanager/get?secretId=... on the extension's port (PARAMETERS_SECRETS_EXTENSION_HTTP_PORT,
 * default 2773) with the session token in X-Aws-Parameters-Secrets-Token; the body is the
 * GetSecretValue JSON. BENCH_EXTENSION_HOST overrides the host (default localhost).
 */
const http = require('node:http');

exports.getSecretJson = (secretId) =>
  new Promise((resolve, reject) => {
    const request = http.get(
      {
        host: process.env.BENCH_EXTENSION_HOST ?? 'localhost',
        port: Number(process.env.PARAMETERS_SECRETS_EXTENSION_HTTP_PORT ?? 2773),
        path: `/secretsmanager/get?secretId=${encodeURIComponent(secretId)}`,
        headers: { 'X-Aws-Parameters-Secrets-Token': process.env.AWS_SESSION_TOKEN ?? '' },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => {
          if (response.statusCode !== 200) {
            reject(new Error(`extension answered ${response.statusCode}: ${body}`));
            return;
          }
          try {
            resolve(JSON.parse(JSON.parse(body).SecretString));
          } catch (error) {
            reject(error);
          }
        });
      },
    );
    request.on('error', reject);
  });
