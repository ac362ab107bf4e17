/**
 * Report titles and column names in the other languages of the reference reports plugin
 * (tools/reports-plugin), by report id and property key; English is the definitions' own `title` and
 * `name`. Not part of the API: no handler, the manifest nor the OpenAPI document reads it.
 */

/** A name in Arabic, German and Spanish. */
export type LocalNames = Readonly<Record<'ar' | 'de' | 'es', string>>;

export interface ReportNames {
  readonly title: LocalNames;
  /** By property key. */
  readonly properties: Readonly<Record<string, LocalNames>>;
}

const ORDERS: LocalNames = { ar: 'الطلبات', de: 'Bestellungen', es: 'Pedidos' };
const SALES: LocalNames = { ar: 'المبيعات', de: 'Umsatz', es: 'Ventas' };

export const REPORT_NAMES: Readonly<Record<string, ReportNames>> = {
  'orders-per-day': {
    title: { ar: 'الطلبات يوميًا', de: 'Bestellungen pro Tag', es: 'Pedidos por día' },
    properties: {
      date: { ar: 'اليوم', de: 'Tag', es: 'Día' },
      orderCount: ORDERS,
      revenue: SALES,
    },
  },
  dishes: {
    title: { ar: 'الأطباق', de: 'Gerichte', es: 'Platos' },
    properties: {
      name: { ar: 'الطبق', de: 'Gericht', es: 'Plato' },
      orderCount: ORDERS,
      revenue: SALES,
    },
  },
  revenue: {
    title: { ar: 'الإيرادات شهريًا', de: 'Umsatz pro Monat', es: 'Ingresos por mes' },
    properties: {
      month: { ar: 'الشهر', de: 'Monat', es: 'Mes' },
      year: { ar: 'السنة', de: 'Jahr', es: 'Año' },
      orderCount: ORDERS,
      revenue: SALES,
    },
  },
  'orders-today': {
    title: { ar: 'طلبات اليوم', de: 'Bestellungen heute', es: 'Pedidos de hoy' },
    properties: {
      id: { ar: 'الطلب', de: 'Bestellung', es: 'Pedido' },
      placedAt: { ar: 'وقت الطلب', de: 'Bestellt um', es: 'Hora del pedido' },
      state: { ar: 'الحالة', de: 'Status', es: 'Estado' },
      itemCount: { ar: 'الأصناف', de: 'Artikel', es: 'Artículos' },
      total: { ar: 'الإجمالي', de: 'Summe', es: 'Total' },
    },
  },
};
