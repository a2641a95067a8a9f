/** `threshold model`: the curve, the maps and the zones of a user on a date (../model.ts). */
import { parseDate, todayLocal } from '../../domain/time.js';
import { CommandFailure, UsageError, command } from '../command.js';

export const modelCommand = command({
  words: 'model',
  summary: 'Prints a user\'s physiological profile on a date → {intensity_duration_model, metabolic_maps, zones, algorithms}, each as the API publishes it.',
  options: {
    user: { type: 'string', required: true, value: 'USER_ID', description: 'The user.' },
    date: { type: 'string', value: 'YYYY-MM-DD', description: 'The profile as of this date (the 90 days ending on it); default today (UTC).' },
    sport: { type: 'string', value: 'SPORT', description: 'cycling (power; the default) or running (speed).' },
    engine: { type: 'string', value: 'HOST:PORT', description: 'Ask this running engine (ENGINE_TOKEN is sent when set) instead of starting one in this process.' },
  },
  details: [
    'Asks the engine over its gRPC contract exactly as the gateway does (GetIntensityDurationModel, GetMetabolicMap, GetZones in proto/threshold/engine/v1/engine.proto), '
    + 'so a batch job can call the same RPCs itself. A map or a zone system the data cannot answer appears as {"problem": {code, detail}}; zone systems a quantity does not offer are left out.',
  ],
  async run({ values }, context) {
    const date = values.date ?? todayLocal();
    if (parseDate(date) === null) throw new UsageError(`--date must be a date YYYY-MM-DD, not ${date}`);
    const sport = values.sport ?? 'cycling';
    // Loaded here, not at the top: only this command starts an engine.
    const { modelReport, MODEL_SPORTS } = await import('../model.js');
    if (!(MODEL_SPORTS as string[]).includes(sport)) throw new UsageError(`--sport must be ${MODEL_SPORTS.join(' or ')}, not ${sport}`);
    const store = await context.store();
    if (!(await store.users.get(values.user))) throw new CommandFailure(`no user with id ${values.user}`);
    return modelReport(store, context.env, { userId: values.user, date, sport: sport as 'cycling' | 'running', ...(values.engine && { engineAddress: values.engine }) });
  },
});
