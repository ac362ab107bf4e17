/**
 * JWT verification (spec 5.2–5.3) with the container's verifier: the verified, typed claims
 * are handed forward on the request's state.
 */
import type { Verifier } from '../shared/auth/verifier';
import { requireState, stateOf, type PortalMiddleware, type PortalRequest } from './types';

export interface VerifyJwtOptions {
  readonly verifier: Verifier;
}

export const verifyJwt = ({ verifier }: VerifyJwtOptions): PortalMiddleware => {
  const verifyJwtBefore = async (request: PortalRequest) => {
    stateOf(request.context).claims = await verifier(requireState(request.context, 'token'));
  };
  return { before: verifyJwtBefore };
};
