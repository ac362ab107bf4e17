/**
 * How the documents describe an endpoint of the catalogue: its parameters (path, header, query
 * string) and the error statuses it answers. Build time only: nothing under functions/,
 * middleware/ or shared/ imports tools/generators/ (lint-enforced).
 */
import { type Endpoint } from '../catalogue';
import {
  ERROR_STATUSES,
  type Answer,
  type CustomParameter,
  type ErrorStatus,
} from '../../shared/answers';

/** A parameter as the manifest and the OpenAPI document list it. */
export interface EndpointParameter extends CustomParameter {
  readonly in: 'path' | 'query' | 'header';
}

/** Path parameters every endpoint may use, by the name in its path template. */
export const PATH_PARAMETERS: Readonly<Record<string, EndpointParameter>> = {
  id: {
    name: 'id',
    in: 'path',
    required: true,
    description:
      "The restaurant: the brand's own id or its restaurantId on the requested platform (must not be empty)",
  },
  code: { name: 'code', in: 'path', required: true, description: 'The plugin code' },
};

export const PLATFORM_HEADER: EndpointParameter = {
  name: 'X-Platform-Id',
  in: 'header',
  required: false,
  description:
    'The requested platform (spec 4.2); without it, the first platform in the token (spec 5.5). A browser page on another origin cannot send it (spec 4.3 CORS headers).',
};

export const FORMAT_PARAMETER: EndpointParameter = {
  name: 'format',
  in: 'query',
  required: false,
  description: 'csv answers the report as a CSV download (as does Accept: text/csv)',
  enum: ['json', 'csv'],
  default: 'json',
};

/** The `{name}` parts of a path template, in order. */
export const pathParameterNames = (path: string): string[] =>
  [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1] ?? '');

/** Every parameter of an endpoint: path, then header, then query. */
export const endpointParameters = (endpoint: Endpoint): EndpointParameter[] => {
  const pathParameters = pathParameterNames(endpoint.paths[0]).map((name) => {
    const parameter = PATH_PARAMETERS[name];
    if (!parameter) throw new TypeError(`${endpoint.function}: no description of {${name}}`);
    return parameter;
  });
  const query = (list: readonly CustomParameter[]): EndpointParameter[] =>
    list.map((parameter) => ({ ...parameter, in: 'query' }));
  const { answers } = endpoint;
  switch (answers.kind) {
    case 'report':
      return [
        ...pathParameters,
        PLATFORM_HEADER,
        ...query(answers.report.parameters),
        FORMAT_PARAMETER,
      ];
    case 'service':
      return [...pathParameters, PLATFORM_HEADER, ...query(answers.service.parameters)];
    case 'custom':
      return [...pathParameters, ...query(answers.parameters)];
  }
};

/** The error statuses an endpoint can answer, each with the body of spec 2.6. */
export const endpointErrorStatuses = (endpoint: Endpoint): readonly ErrorStatus[] =>
  endpoint.answers.kind === 'custom' ? endpoint.answers.errorStatuses : ERROR_STATUSES;

/** The id, title and description of whatever an endpoint answers. */
export const answerSummary = (
  answers: Answer,
): { id: string; title: string; description: string } => {
  const { id, title, description } =
    answers.kind === 'report'
      ? answers.report
      : answers.kind === 'service'
        ? answers.service
        : answers;
  return { id, title, description };
};
