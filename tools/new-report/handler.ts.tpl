/** GET __PATH__ — __TITLE__. */
import { reportHandler } from '../middleware/compose';
import { __CAMEL__ } from '../shared/reports/__NAME__';

export const handler = reportHandler(__CAMEL__);
