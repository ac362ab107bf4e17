/** The units of spec 2.4: what each means, how a row writes it, how the portal renders it. */
import type { PropertyDefinition, Unit } from '../../shared/reports/report';

export interface UnitDescription {
  readonly unit: Unit;
  readonly meaning: string;
  /** How the value is written in a row. */
  readonly valueFormat: string;
  /** How the portal renders it (browser locale). */
  readonly renderedAs: string;
  /** The property type the unit requires. */
  readonly type: PropertyDefinition['type'];
}

/** The supported units of spec 2.4. */
export const UNITS: Readonly<Record<Unit, UnitDescription>> = {
  DATE: {
    unit: 'DATE',
    meaning: 'Full date',
    valueFormat: 'YYYY-MM-DD',
    renderedAs: 'locale date',
    type: 'string',
  },
  DATE_MONTH: {
    unit: 'DATE_MONTH',
    meaning: 'Month',
    valueFormat: 'first day of the month, YYYY-MM-01',
    renderedAs: 'month name',
    type: 'string',
  },
  DATE_YEAR: {
    unit: 'DATE_YEAR',
    meaning: 'Year',
    valueFormat: 'first day of the year, YYYY-01-01',
    renderedAs: 'year',
    type: 'string',
  },
  CURRENCY: {
    unit: 'CURRENCY',
    meaning: 'Restaurant currency',
    valueFormat: "number, rounded to the currency's minor unit",
    renderedAs: 'the number; the currency symbol is shown only in the table header',
    type: 'number',
  },
};

export const PROPERTY_TYPES: readonly string[] = ['string', 'integer', 'number'];
