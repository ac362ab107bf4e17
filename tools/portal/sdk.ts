/**
 * The contract between the portal (here: the local preview, tools/portal/) and a plugin bundle
 * (tools/reports-plugin/): what spec 9.1 says a v2 plugin relies on, and nothing more.
 *
 * A plugin bundle is an ES module whose default export is a {@link PortalPlugin}. The portal
 * loads it with `import(bundleUrl)` (the `{bundle}` placeholder substituted), creates an
 * element under the plugin's `route` and calls `mount(element, sdk)`; it calls the returned
 * function when it unmounts the plugin (sign-out, another token).
 *
 * Emulated, not imitated: the real portal's SDK and component libraries are proprietary; this
 * is the part of their contract the specification shows (docs/preview.md).
 */

/** One platform a restaurant is attached to (spec 2.2, authSchema.restaurants[].platforms[]). */
export interface RestaurantPlatform {
  readonly restaurantId: string;
  readonly platformId: string;
  readonly platformKey: string;
}

/** IRestaurantData: the restaurant the user is looking at, as the token lists it. */
export interface RestaurantData {
  /** The brand-internal restaurant id, used in the API paths. */
  readonly id: string;
  readonly platforms: readonly RestaurantPlatform[];
}

/** A render callback: draws into the element, returns its cleanup. */
export type Component = (element: HTMLElement) => () => void;

export interface NavigationOptions {
  /** The page title the portal shows above the plugin. */
  readonly title: string;
  /** Spec 9.1: a component the portal renders as sticky content (here: the date selector). */
  readonly stickyContent?: Component;
}

export interface PortalSdk {
  /** The owner's current JWT, for `Authorization: Bearer <token>` on every API call. */
  getToken(): string;
  /**
   * Spec 9.1: `callback` is called at once with the current restaurant and again on every
   * switch (without a reload). Returns a function that removes the observer.
   */
  addRestaurantObserver(callback: (restaurant: RestaurantData) => void): () => void;
  /** Spec 9.1: the plugin's navigation, with the sticky content the portal renders for it. */
  setNewNavigation(options: NavigationOptions): void;
}

export interface PortalPlugin {
  mount(element: HTMLElement, sdk: PortalSdk): () => void;
}
