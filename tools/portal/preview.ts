/**
 * The portal preview's page (docs/preview.md): signs in as a sample owner through the local
 * issuer (or takes a pasted token), offers the restaurants of the token, lists the plugins that
 * `GET /v1/plugins?portalVersion=v2` answers for it, loads each bundle with `import(bundleUrl)`
 * (`{bundle}` substituted) and mounts it under its route with the SDK of tools/portal/sdk.ts.
 *
 * Switching restaurant: without X-Platform-Id (which CORS does not let a browser send), the API
 * takes the token's first platform as the active one (spec 5, point 5). So, signed in as a sample
 * owner, the page first gets a token that lists the chosen restaurant first (the local issuer,
 * `POST /sign-in`), then calls the observers; a pasted token is kept as it is.
 *
 * Plain DOM, no framework: the page stands in for the proprietary portal only as far as the
 * contract of spec 9.1 goes. Its controls carry stable data-testid attributes
 * (tests/browser/preview.test.ts).
 */
import type {
  NavigationOptions,
  PortalPlugin,
  PortalSdk,
  RestaurantData,
  RestaurantPlatform,
} from './sdk';
import type { PreviewSettings } from './settings';

/** A Plugin Object of spec 2.1, as the registry answers it. */
interface PluginObject {
  readonly code: string;
  readonly route: string;
  readonly bundleUrl: string;
}

/** The file name the preview substitutes for the bundle placeholder (docs/reports.md). */
const BUNDLE_PLACEHOLDER = '{bundle}';
const BUNDLE_FILE = 'index.js';

/** One plugin as the page holds it. */
interface Mounted {
  readonly plugin: PluginObject;
  readonly container: HTMLElement;
  readonly link: HTMLAnchorElement;
  navigation?: NavigationOptions;
  unmount?: () => void;
}

interface Session {
  token: string;
  /** The sample owner signed in through the local issuer; undefined for a pasted token. */
  readonly owner: string | undefined;
  /** The locale asked for at sign-in (the token's user.locale); undefined: the owner's. */
  readonly locale: string | undefined;
  /** Counts switches: only the latest one's token is used. */
  switches: number;
  readonly who: string;
  readonly restaurants: readonly RestaurantData[];
  current: RestaurantData;
  readonly observers: Set<(restaurant: RestaurantData) => void>;
  readonly plugins: Mounted[];
  /** Set on sign-out: late answers of an old session change nothing. */
  ended: boolean;
}

const element = (testId: string): HTMLElement => {
  const found = document.querySelector<HTMLElement>(`[data-testid="${testId}"]`);
  if (!found) throw new Error(`the page has no [data-testid="${testId}"]`);
  return found;
};

const settingsText = document.getElementById('preview-settings')?.textContent ?? '{}';
const settings = JSON.parse(settingsText) as PreviewSettings;

const ui = {
  form: element('sign-in-form') as HTMLFormElement,
  ownerField: element('owner-field'),
  ownerSelect: element('owner-select') as HTMLSelectElement,
  localeField: element('locale-field'),
  localeSelect: element('locale-select') as HTMLSelectElement,
  tokenInput: element('token-input') as HTMLInputElement,
  useToken: element('use-token') as HTMLButtonElement,
  session: element('session'),
  signedInAs: element('signed-in-as'),
  currentRestaurant: element('current-restaurant'),
  restaurantSelect: element('restaurant-select') as HTMLSelectElement,
  otherInput: element('other-restaurant-input') as HTMLInputElement,
  otherApply: element('other-restaurant-apply') as HTMLButtonElement,
  signOut: element('sign-out') as HTMLButtonElement,
  message: element('preview-message'),
  portal: element('portal'),
  nav: element('plugin-nav'),
  navigationTitle: element('navigation-title'),
  sticky: element('sticky-content'),
  plugins: element('plugins'),
};

let session: Session | undefined;
/** Whether the session was signed out meanwhile (read through a call: it changes while awaiting). */
const isOver = (current: Session) => current.ended;
let stickyCleanup: (() => void) | undefined;

const say = (text: string) => {
  ui.message.textContent = text;
};

const describe = (error: unknown) => (error instanceof Error ? error.message : String(error));

const restaurantName = (id: string) =>
  settings.owners.flatMap((owner) => owner.restaurants).find((r) => r.id === id)?.name;

// ---- the token ----------------------------------------------------------------------------

const base64UrlDecode = (text: string): string => {
  const base64 = text.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64.padEnd(Math.ceil(base64.length / 4) * 4, '='));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
};

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

const platformOf = (value: unknown): RestaurantPlatform[] => {
  if (!isRecord(value)) return [];
  const { restaurantId, platformId, platformKey } = value;
  if (typeof platformId !== 'string') return [];
  return [
    {
      restaurantId: typeof restaurantId === 'string' ? restaurantId : '',
      platformId,
      platformKey: typeof platformKey === 'string' ? platformKey : platformId,
    },
  ];
};

/**
 * The restaurants of a token's authSchema (spec 2.2: an object, or a JSON string of one) and the
 * user's name. The page only reads the payload to draw itself; the API verifies the token.
 */
const readToken = (token: string): { who: string; restaurants: RestaurantData[] } => {
  const payloadPart = token.split('.')[1];
  if (token.split('.').length !== 3 || !payloadPart) throw new Error('not a JWT');
  const payload = JSON.parse(base64UrlDecode(payloadPart)) as unknown;
  if (!isRecord(payload)) throw new Error('the token payload is not an object');
  const schema: unknown =
    typeof payload.authSchema === 'string'
      ? JSON.parse(payload.authSchema)
      : (payload.authSchema ?? {});
  const list = isRecord(schema) && Array.isArray(schema.restaurants) ? schema.restaurants : [];
  const restaurants = (list as unknown[]).flatMap((entry): RestaurantData[] =>
    isRecord(entry) && typeof entry.id === 'string' && entry.id !== ''
      ? [
          {
            id: entry.id,
            platforms: Array.isArray(entry.platforms)
              ? (entry.platforms as unknown[]).flatMap(platformOf)
              : [],
          },
        ]
      : [],
  );
  const user = isRecord(payload.user) ? payload.user : {};
  const who =
    typeof user.name === 'string' ? user.name : typeof payload.sub === 'string' ? payload.sub : '';
  return { who, restaurants };
};

// ---- the SDK of spec 9.1 -------------------------------------------------------------------

const activeRoute = (current: Session): Mounted | undefined => {
  const route = decodeURIComponent(location.hash.replace(/^#\/?/, ''));
  return current.plugins.find((m) => m.plugin.route === route) ?? current.plugins[0];
};

/** The active plugin's title and sticky content, in the portal's navigation area. */
const renderNavigation = () => {
  stickyCleanup?.();
  stickyCleanup = undefined;
  ui.sticky.replaceChildren();
  const active = session ? activeRoute(session) : undefined;
  const navigation = active?.navigation;
  ui.navigationTitle.textContent = navigation?.title ?? active?.plugin.code ?? '';
  if (navigation?.stickyContent) {
    try {
      stickyCleanup = navigation.stickyContent(ui.sticky);
    } catch (error) {
      say(`The sticky content of ${active?.plugin.code ?? '?'} failed: ${describe(error)}`);
    }
  }
};

const showRoute = () => {
  if (!session) return;
  const active = activeRoute(session);
  for (const mounted of session.plugins) {
    const shown = mounted === active;
    mounted.container.hidden = !shown;
    if (shown) mounted.link.setAttribute('aria-current', 'page');
    else mounted.link.removeAttribute('aria-current');
  }
  renderNavigation();
};

const sdkFor = (current: Session, mounted: Mounted): PortalSdk => ({
  getToken: () => current.token,
  addRestaurantObserver: (callback) => {
    current.observers.add(callback);
    callback(current.current);
    return () => {
      current.observers.delete(callback);
    };
  },
  setNewNavigation: (options) => {
    mounted.navigation = options;
    if (session === current && activeRoute(current) === mounted) renderNavigation();
  },
});

// ---- restaurants ---------------------------------------------------------------------------

const showCurrent = (current: Session) => {
  const { id } = current.current;
  ui.currentRestaurant.textContent = id;
  ui.currentRestaurant.title = restaurantName(id) ?? 'not in the token';
  ui.currentRestaurant.dataset.restaurantId = id;
};

/** Switches every observer to `restaurant`, without a reload (spec 9.1). */
const switchTo = (restaurant: RestaurantData) => {
  if (!session) return;
  session.current = restaurant;
  showCurrent(session);
  for (const observer of [...session.observers]) {
    try {
      observer(restaurant);
    } catch (error) {
      say(`A restaurant observer failed: ${describe(error)}`);
    }
  }
};

// ---- plugins -------------------------------------------------------------------------------

const isPluginObject = (value: unknown): value is PluginObject =>
  isRecord(value) &&
  typeof value.code === 'string' &&
  typeof value.route === 'string' &&
  typeof value.bundleUrl === 'string';

const fetchPlugins = async (token: string): Promise<PluginObject[]> => {
  const response = await fetch(`${settings.apiUrl}/v1/plugins?portalVersion=v2`, {
    headers: { Authorization: `Bearer ${token}` },
  });
  const text = await response.text();
  if (!response.ok) {
    throw new Error(`GET /v1/plugins?portalVersion=v2 answered ${response.status}: ${text}`);
  }
  const body = JSON.parse(text) as unknown;
  if (!Array.isArray(body) || !body.every(isPluginObject)) {
    throw new Error('GET /v1/plugins answered something other than an array of Plugin Objects');
  }
  return body;
};

const isPortalPlugin = (value: unknown): value is PortalPlugin =>
  isRecord(value) && typeof value.mount === 'function';

const mountPlugin = async (current: Session, mounted: Mounted) => {
  const url = mounted.plugin.bundleUrl.split(BUNDLE_PLACEHOLDER).join(BUNDLE_FILE);
  const module = (await import(url)) as { default?: unknown };
  if (isOver(current)) return;
  if (!isPortalPlugin(module.default)) {
    throw new Error(`${url} has no default export with a mount function`);
  }
  mounted.unmount = module.default.mount(mounted.container, sdkFor(current, mounted));
};

const addPlugin = (current: Session, plugin: PluginObject): Mounted => {
  const container = document.createElement('section');
  container.className = 'preview-plugin';
  container.dataset.testid = `plugin-${plugin.route}`;
  container.dataset.route = plugin.route;
  container.hidden = true;
  ui.plugins.append(container);
  const item = document.createElement('li');
  const link = document.createElement('a');
  link.href = `#/${encodeURIComponent(plugin.route)}`;
  link.dataset.testid = `nav-${plugin.code}`;
  link.textContent = plugin.code;
  item.append(link);
  ui.nav.append(item);
  const mounted: Mounted = { plugin, container, link };
  current.plugins.push(mounted);
  return mounted;
};

// ---- sign-in and sign-out ------------------------------------------------------------------

const signOut = () => {
  const ending = session;
  session = undefined;
  if (ending) {
    ending.ended = true;
    for (const mounted of ending.plugins) {
      try {
        mounted.unmount?.();
      } catch (error) {
        say(`Unmounting ${mounted.plugin.code} failed: ${describe(error)}`);
      }
    }
    ending.observers.clear();
  }
  stickyCleanup?.();
  stickyCleanup = undefined;
  ui.sticky.replaceChildren();
  ui.navigationTitle.textContent = '';
  ui.nav.replaceChildren();
  ui.plugins.replaceChildren();
  ui.portal.hidden = true;
  ui.portal.dataset.state = 'signed-out';
  ui.session.hidden = true;
  ui.form.hidden = false;
};

const requestToken = async (sub: string, restaurant?: string, locale?: string): Promise<string> => {
  const response = await fetch('/sign-in', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ sub, restaurant, locale }),
  });
  if (!response.ok) throw new Error(`the preview answered ${response.status}`);
  const { token } = (await response.json()) as { token: string };
  return token;
};

/** A switch from the restaurant picker: the token for it first, when the page can get one. */
const switchRestaurant = async (restaurant: RestaurantData) => {
  const current = session;
  if (!current) return;
  current.switches += 1;
  const switchNumber = current.switches;
  if (current.owner !== undefined) {
    let token: string;
    try {
      token = await requestToken(current.owner, restaurant.id, current.locale);
    } catch (error) {
      say(`No token for ${restaurant.id}: ${describe(error)}`);
      return;
    }
    if (isOver(current) || switchNumber !== current.switches) return;
    current.token = token;
  }
  switchTo(restaurant);
};

const start = async (token: string, owner?: string, locale?: string) => {
  signOut();
  let read;
  try {
    read = readToken(token);
  } catch (error) {
    say(`This token cannot be read: ${describe(error)}`);
    return;
  }
  const [first] = read.restaurants;
  if (!first) {
    say('This token lists no restaurant.');
    return;
  }
  const current: Session = {
    token,
    owner,
    locale,
    switches: 0,
    who: read.who,
    restaurants: read.restaurants,
    current: first,
    observers: new Set(),
    plugins: [],
    ended: false,
  };
  session = current;
  // The form's control had the focus: hiding it would drop the focus to the page.
  const hadFocus = ui.form.contains(document.activeElement);
  ui.form.hidden = true;
  ui.session.hidden = false;
  ui.signedInAs.textContent = read.who;
  ui.restaurantSelect.replaceChildren(
    ...read.restaurants.map(({ id }) => {
      const name = restaurantName(id);
      return new Option(name ? `${id} · ${name}` : id, id);
    }),
  );
  ui.restaurantSelect.value = first.id;
  if (hadFocus) ui.restaurantSelect.focus();
  showCurrent(current);
  ui.portal.hidden = false;
  ui.portal.dataset.state = 'loading';
  say('Loading plugins…');

  let plugins: PluginObject[];
  try {
    plugins = await fetchPlugins(token);
  } catch (error) {
    if (isOver(current)) return;
    ui.portal.dataset.state = 'error';
    say(describe(error));
    return;
  }
  if (isOver(current)) return;
  const all = plugins.map((plugin) => addPlugin(current, plugin));
  showRoute();
  const failures: string[] = [];
  await Promise.all(
    all.map((mounted) =>
      mountPlugin(current, mounted).catch((error: unknown) => {
        failures.push(`${mounted.plugin.code}: ${describe(error)}`);
      }),
    ),
  );
  if (isOver(current)) return;
  showRoute();
  ui.portal.dataset.state = failures.length > 0 ? 'error' : 'ready';
  say(
    failures.length > 0
      ? `Some plugins failed to load: ${failures.join('; ')}`
      : plugins.length === 0
        ? 'The registry offers no v2 plugin for this token.'
        : '',
  );
};

const signInAs = async (sub: string, locale: string | undefined) => {
  say('Signing in…');
  try {
    await start(await requestToken(sub, undefined, locale), sub, locale);
  } catch (error) {
    say(`Sign-in failed: ${describe(error)}`);
  }
};

// ---- wiring --------------------------------------------------------------------------------

ui.ownerField.hidden = !settings.signIn;
ui.localeField.hidden = !settings.signIn;
ui.ownerSelect.replaceChildren(
  ...settings.owners.map((owner) => {
    const ids = owner.restaurants.map((r) => r.id).join(', ');
    return new Option(`${owner.name} (${owner.sub}: ${ids})`, owner.sub);
  }),
);

ui.form.addEventListener('submit', (event) => {
  event.preventDefault();
  if (settings.signIn) void signInAs(ui.ownerSelect.value, ui.localeSelect.value || undefined);
});
ui.useToken.addEventListener('click', () => {
  const token = ui.tokenInput.value.trim();
  ui.tokenInput.value = '';
  void start(token);
});
ui.tokenInput.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    event.preventDefault();
    ui.useToken.click();
  }
});
ui.restaurantSelect.addEventListener('change', () => {
  const chosen = session?.restaurants.find((r) => r.id === ui.restaurantSelect.value);
  if (chosen) void switchRestaurant(chosen);
});
// Preview only (docs/preview.md): look at a restaurant the token does not list, to see the API's
// 403 rendered by the plugin. The real portal offers only the token's restaurants.
ui.otherApply.addEventListener('click', () => {
  const id = ui.otherInput.value.trim();
  if (id === '' || !session) return;
  // Invalidates a switch still waiting for its token.
  session.switches += 1;
  switchTo({ id, platforms: [] });
});
ui.signOut.addEventListener('click', () => {
  signOut();
  say('');
  // The button is hidden with the session: the focus goes to the form that replaces it.
  (settings.signIn ? ui.ownerSelect : ui.tokenInput).focus();
});
window.addEventListener('hashchange', showRoute);
ui.portal.dataset.state = 'signed-out';
