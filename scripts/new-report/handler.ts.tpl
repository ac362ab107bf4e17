/** GET __PATH__ — __TITLE__. */
import { reportEndpoint } from '../../middleware/compose';
import { __CAMEL__ } from '../../shared/reports/__NAME__';
import { __CAMEL__Queries } from '../../shared/reports/queries/__NAME__';
import { containerDependencies } from '../../shared/runtime';

const deps = containerDependencies();
export const handler = reportEndpoint(__CAMEL__, __CAMEL__Queries(deps.sql), deps);
