/**
 * The adapters of the configured providers: one per provider whose client id and secret are set
 * (domain/integration-settings.ts). Garmin Connect and Wahoo plug in here beside intervals.icu.
 */
import type { IntegrationSettings } from '../../domain/integration-settings.js';
import type { Provider } from '../../domain/providers.js';
import type { ProviderAdapter } from './provider.js';
import { intervalsIcuAdapter } from './intervals-icu/adapter.js';

export type Adapters = Partial<Record<Provider, ProviderAdapter>>;

const FACTORIES: Partial<Record<Provider, (settings: NonNullable<IntegrationSettings['providers'][Provider]>) => ProviderAdapter>> = {
  intervals_icu: (settings) => intervalsIcuAdapter(settings),
};

export function createAdapters(settings: IntegrationSettings): Adapters {
  const adapters: Adapters = {};
  for (const [provider, config] of Object.entries(settings.providers) as [Provider, NonNullable<IntegrationSettings['providers'][Provider]>][]) {
    const factory = FACTORIES[provider];
    if (factory) adapters[provider] = factory(config);
  }
  return adapters;
}
