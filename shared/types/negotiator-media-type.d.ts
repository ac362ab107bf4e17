/**
 * negotiator's media-type module on its own (the package's main module also loads its charset,
 * encoding and language negotiation, which the reports never use).
 */
declare module 'negotiator/lib/mediaType' {
  /** `provided`, those `accept` takes (q > 0), in the order it prefers them. */
  function preferredMediaTypes(accept: string | undefined, provided: readonly string[]): string[];
  export default preferredMediaTypes;
}
