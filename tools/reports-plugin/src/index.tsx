/**
 * The reference reports plugin (spec 9.1): the default export the portal mounts. It keeps the
 * current restaurant in one store that the SDK observer updates, draws the controls as the
 * navigation's sticky content and the report below, and fetches the restaurant currency from
 * the dashboard (the report rows do not carry it). It draws once the owner's language has
 * loaded (English at once).
 */
import { render } from 'preact';
import type { PortalPlugin, PortalSdk } from '../../portal/sdk';
import { fetchDashboard } from './api';
import { Controls, ReportView, type PluginContext } from './components';
import { languageFor, loadLanguage, speechFor, type Speech } from './i18n';
import { localToday } from './range';
import { createState, onDay } from './state';
import { STYLES } from './styles';

const config = __REPORTS_PLUGIN_CONFIG__;

const show = (element: HTMLElement, sdk: PortalSdk, speech: Speech): (() => void) => {
  const today = localToday();
  const state = createState(config.reports, today);
  const context: PluginContext = {
    apiUrl: config.apiUrl,
    reports: config.reports,
    state,
    getToken: () => sdk.getToken(),
    speech,
    fetch: (url, init) => fetch(url, init),
  };

  let currencyRequest: AbortController | undefined;
  const loadCurrency = () => {
    currencyRequest?.abort();
    const restaurant = state.restaurant.get();
    if (!restaurant || !config.currencyPath) return;
    const controller = new AbortController();
    currencyRequest = controller;
    const url = `${config.apiUrl}${config.currencyPath.replace('{id}', encodeURIComponent(restaurant.id))}`;
    fetchDashboard(context.fetch, url, sdk.getToken(), controller.signal).then(
      ({ currency, date, figures, compareDate }) => {
        if (controller.signal.aborted) return;
        state.currency.set({
          restaurantId: restaurant.id,
          currency,
          ...(compareDate && figures.length ? { today: { figures, compareDate } } : {}),
        });
        if (date) state.today.set(date);
      },
      () => {
        if (!controller.signal.aborted) {
          state.currency.set({ restaurantId: restaurant.id, currency: undefined });
        }
      },
    );
  };
  const stopCurrency = state.restaurant.subscribe(loadCurrency);
  // A preset period follows the restaurant's day, which may not be the browser's.
  const stopToday = state.today.subscribe((day) => {
    const selection = state.selection.get();
    const rule = config.reports.find((report) => report.id === selection.reportId)?.range;
    if (rule) state.selection.set(onDay(selection, day, rule));
  });
  // The one place the current restaurant is written; the same restaurant again changes nothing.
  const removeObserver = sdk.addRestaurantObserver((restaurant) => {
    if (state.restaurant.get()?.id !== restaurant.id) state.restaurant.set(restaurant);
  });

  const style = document.createElement('style');
  style.textContent = STYLES;
  element.appendChild(style);
  const host = document.createElement('div');
  element.appendChild(host);
  render(<ReportView context={context} />, host);

  sdk.setNewNavigation({
    title: speech.t('title'),
    stickyContent: (sticky) => {
      render(<Controls context={context} />, sticky);
      return () => {
        render(null, sticky);
      };
    },
  });

  return () => {
    removeObserver();
    stopCurrency();
    stopToday();
    currencyRequest?.abort();
    render(null, host);
    host.remove();
    style.remove();
  };
};

const mount = (element: HTMLElement, sdk: PortalSdk): (() => void) => {
  let unmount: (() => void) | undefined;
  let unmounted = false;
  void loadLanguage(languageFor(sdk.getToken())).then((spoken) => {
    if (unmounted) return;
    unmount = show(element, sdk, speechFor(sdk.getToken(), navigator.language || 'en', spoken));
  });
  return () => {
    unmounted = true;
    unmount?.();
  };
};

const plugin: PortalPlugin = { mount };
export default plugin;
