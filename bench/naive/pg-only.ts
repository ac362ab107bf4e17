/** One-line import of `pg`: what evaluating the client alone costs (cold-start benchmark). */
import pg from 'pg';

export const handler = (): unknown => pg.Pool;
