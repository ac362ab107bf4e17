/**
 * What the preview's server (tools/local/preview.ts) puts in the page for its script
 * (tools/portal/preview.ts): one shape for both sides.
 */
export interface PreviewSettings {
  /** The API's origin, as the plugin was built for it. */
  readonly apiUrl: string;
  /** Whether `POST /sign-in` signs tokens (the local issuer is in use). */
  readonly signIn: boolean;
  readonly owners: readonly {
    readonly sub: string;
    readonly name: string;
    readonly restaurants: readonly { readonly id: string; readonly name: string }[];
  }[];
}
