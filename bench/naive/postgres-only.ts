/** One-line import of postgres.js: what evaluating the client alone costs (cold-start benchmark). */
import postgres from 'postgres';

export const handler = (): unknown => postgres;
