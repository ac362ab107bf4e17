/**
 * The preflight's check of the custom domain's certificate (tools/release/preflight.ts; the
 * domain is tools/generators/domain.ts's regional API Gateway domain name): the ACM certificate
 * of DOMAIN_CERTIFICATE_ARN exists in the region deployed, is issued, covers DOMAIN_NAME and has
 * not expired. API Gateway would refuse it only once CloudFormation creates the domain, mid-release.
 * An ARN of another region is refused before, as packaging refuses it (domain.ts's
 * domainSettings); the region's own ACM endpoint is asked, so a certificate found is the region's.
 */
import { ACMClient, DescribeCertificateCommand } from '@aws-sdk/client-acm';
import type { DomainSettings } from '../generators/domain';
import { clientConfig, describeError, isNotFound, type Findings } from './preflight-common';

/** Whether a certificate name covers `domain`: the same, or a wildcard of one label. */
export const covers = (certificateName: string, domain: string): boolean => {
  const name = certificateName.toLowerCase();
  const host = domain.toLowerCase();
  if (name === host) return true;
  return name.startsWith('*.') && host.slice(host.indexOf('.') + 1) === name.slice(2);
};

const day = (date: Date) => date.toISOString().slice(0, 10);

/** ACM: the custom domain's certificate in the check's region; `variables` name the settings. */
export const checkCertificate = async (
  check: Findings,
  domain: DomainSettings,
  variables: { readonly name: string; readonly certificate: string },
): Promise<void> => {
  const { region } = check;
  const { certificateArn: arn } = domain;
  const acm = new ACMClient(clientConfig(region));
  try {
    const { Certificate: certificate } = await acm.send(
      new DescribeCertificateCommand({ CertificateArn: arn }),
    );
    const names = [
      ...new Set([certificate?.DomainName ?? '', ...(certificate?.SubjectAlternativeNames ?? [])]),
    ].filter(Boolean);
    const status = certificate?.Status ?? 'unknown';
    const notAfter = certificate?.NotAfter;
    if (status !== 'ISSUED') {
      check.problem(
        `${variables.certificate}: the certificate is ${status}, not ISSUED: ` +
          (status === 'PENDING_VALIDATION'
            ? 'create its validation DNS record and wait until ACM issues it'
            : `request a new one for ${domain.name} in ${region} and give its ARN`),
      );
    } else if (notAfter === undefined || notAfter.getTime() <= Date.now()) {
      check.problem(
        `${variables.certificate}: the certificate expired${notAfter ? ` on ${day(notAfter)}` : ''}: renew it, or request a new one for ${domain.name} and give its ARN`,
      );
    }
    if (!names.some((name) => covers(name, domain.name))) {
      check.problem(
        `${variables.certificate}: the certificate is for ${names.join(', ') || 'no name'}, not ${domain.name} (${variables.name}): give a certificate covering ${domain.name}`,
      );
    }
    if (check.problems.length === 0 && notAfter) {
      check.found(`certificate for ${domain.name} until ${day(notAfter)}`);
    }
  } catch (error) {
    if (isNotFound(error)) {
      check.problem(
        `${variables.certificate}: no such certificate in ${region} (${arn}): request or import one for ${domain.name} in ${region}`,
      );
    } else {
      check.problem(`the custom domain's certificate not checked: ${describeError(error)}`);
    }
  } finally {
    acm.destroy();
  }
};
