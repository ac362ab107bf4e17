/**
 * An Accept header rewritten for negotiator (csv.ts `reportFormat`), whose media-type module
 * reads any number as a weight (`q=1.5` would outrank `q=1`) and matches a range only if the
 * offered type carries each of its parameters (`text/csv;header=present` would match nothing).
 * Each element (commas and semicolons inside a quoted string do not split) keeps its media
 * range, `charset=utf-8` when it names one, and its weight, or is dropped:
 * - a weight that is no RFC 9110 §12.4.2 qvalue (`0` to `1`, at most three decimals: not `1.5`,
 *   `-1`, `0.1234`, `abc`, `"0.5"`), or a second weight, makes the element invalid; it is
 *   ignored (§2.2 lets a recipient recover from an invalid construct);
 * - a charset other than UTF-8 (any case, quoted or not): a range with a parameter matches only a
 *   representation with it (§12.5.1), and both JSON and CSV are sent in UTF-8 only;
 * - every other parameter (`header=present`, unknown ones) is removed: none changes what is sent
 *   (the CSV always has its header row).
 * What is left names the same ranges, in the same order, so negotiator's precedence holds.
 */

const TOKEN = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";
const MEDIA_RANGE = new RegExp(`^${TOKEN}/${TOKEN}$`);

/** RFC 9110 §12.4.2: qvalue = ( "0" [ "." 0*3DIGIT ] ) / ( "1" [ "." 0*3("0") ] ). */
const QVALUE = /^(?:0(?:\.\d{0,3})?|1(?:\.0{0,3})?)$/;

/**
 * Members of a list split at `,` (or at `;`) outside quoted strings; an unclosed quote runs to
 * the end, so the scan never backtracks.
 */
const ELEMENTS = /(?:"(?:[^"\\]|\\[\s\S]?)*"?|[^,"])+/g;
const PARAMETERS = /(?:"(?:[^"\\]|\\[\s\S]?)*"?|[^;"])+/g;

const unquote = (value: string): string =>
  value.startsWith('"')
    ? value
        .slice(1)
        .replace(/"$/, '')
        .replace(/\\([\s\S])/g, '$1')
    : value;

/** The element as negotiator should read it, or undefined to ignore it. */
const negotiable = (element: string): string | undefined => {
  const [first = '', ...parameters] = element.match(PARAMETERS) ?? [];
  const range = first.trim();
  if (!MEDIA_RANGE.test(range)) return undefined;
  let weight: string | undefined;
  let charset = '';
  for (const parameter of parameters) {
    const equals = parameter.indexOf('=');
    const name = (equals === -1 ? parameter : parameter.slice(0, equals)).trim().toLowerCase();
    const value = equals === -1 ? '' : parameter.slice(equals + 1).trim();
    if (name === 'q') {
      if (weight !== undefined || !QVALUE.test(value)) return undefined;
      weight = value;
    } else if (name === 'charset') {
      if (unquote(value).toLowerCase() !== 'utf-8') return undefined;
      charset = ';charset=utf-8';
    }
  }
  return `${range}${charset};q=${weight ?? '1'}`;
};

/** The header's elements that negotiation may use, rewritten as the module header says. */
export const negotiableAccept = (header: string): string =>
  (header.match(ELEMENTS) ?? []).flatMap((element) => negotiable(element) ?? []).join(', ');
