/**
 * The adapters of the configured providers: one per provider whose client id and secret are set
 * (domain/integration-settings.ts): intervals.icu, Garmin Connect and Wahoo.
 */
import type { IntegrationSettings } from '../../domain/integration-settings.js';
import type { Provider } from '../../domain/providers.js';
import type { ProviderAdapter } from './provider.js';
import { intervalsIcuAdapter } from './intervals-icu/adapter.js';
import { garminAdapter } from './garmin/adapter.js';
import { wahooAdapter } from './wahoo/adapter.js';
import type { SpendBudget } from './provider-budget.js';

export type Adapters = Partial<Record<Provider, ProviderAdapter>>;

export interface AdapterOptions {
  /** Activities asked for per history page (INTEGRATION_PAGE_SIZE), where the provider lets us choose. */
  pageSize: number;
  /** The shared request budget every call spends from first (provider-budget.ts); none: unmetered. */
  spend?: SpendBudget;
}

const FACTORIES: Partial<Record<Provider, (settings: NonNullable<IntegrationSettings['providers'][Provider]>, options: AdapterOptions) => ProviderAdapter>> = {
  intervals_icu: (settings, options) => intervalsIcuAdapter(settings, { listLimit: options.pageSize, ...spendOf(options) }),
  garmin_connect: (settings, options) => garminAdapter(settings, spendOf(options)),
  wahoo: (settings, options) => wahooAdapter(settings, spendOf(options)),
};

export function createAdapters(settings: IntegrationSettings, options: AdapterOptions): Adapters {
  const adapters: Adapters = {};
  for (const [provider, config] of Object.entries(settings.providers) as [Provider, NonNullable<IntegrationSettings['providers'][Provider]>][]) {
    const factory = FACTORIES[provider];
    if (factory) adapters[provider] = factory(config, options);
  }
  return adapters;
}

const spendOf = (options: AdapterOptions): { spend?: SpendBudget } => (options.spend ? { spend: options.spend } : {});
