'use strict';
/* global exports */
/* eslint-disable @typescript-eslint/no-require-imports -- plain CommonJS, run and bundled as is */
/** Floor: one plain node:http GET to the local server (BENCH_FLOOR_URL), whose body is the secret's JSON. */
const http = require('node:http');

exports.getSecretJson = () =>
  new Promise((resolve, reject) => {
    const request = http.get(process.env.BENCH_FLOOR_URL, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk) => (body += chunk));
      response.on('end', () => {
        try {
          resolve(JSON.parse(body));
        } catch (error) {
          reject(error);
        }
      });
    });
    request.on('error', reject);
  });
