/**
 * Scheduled workouts through a real connection: a user connects intervals.icu through the portal (the
 * stand-in, with its calendar-events API from test/support/standins/workout-apis.ts mounted), schedules a
 * running workout, and the engine delivers it with the connection's own sealed token, as a production
 * server with INTERVALS_ICU_* configured would: no token source is injected.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { startIntervalsIcuStandin, type IntervalsIcuStandin, type StandinRoute } from '../support/standins/intervals-icu.js';
import { IntervalsEventsApi } from '../support/standins/workout-apis.js';
import { connectThroughPortal, ICU_CLIENT, intervalsIcuEnv, until } from '../support/integrations.js';
import { jsonClient } from '../support/json-api.js';
import { createApplication } from '../../gateway/services/accounts.js';

let stack: TestStack;
let standin: IntervalsIcuStandin;
const events = new IntervalsEventsApi();

/** Mounts the calendar-events handler on the intervals.icu stand-in, behind its own token check. */
const calendar: StandinRoute = (request, response, url, body, athleteId) => {
  if (!url.pathname.includes('/events')) return false;
  const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
  if (athleteId !== null && token) events.tokens.add(token);
  const answer = events.handle({ method: request.method ?? 'GET', url, headers: request.headers, body });
  if (answer === null) return false;
  response.writeHead(answer.status, { 'content-type': 'application/json', ...answer.headers });
  response.end(JSON.stringify(answer.body ?? {}));
  return true;
};

test.before(async () => {
  standin = await startIntervalsIcuStandin({
    clientId: ICU_CLIENT.id, clientSecret: ICU_CLIENT.secret, webhookSecret: ICU_CLIENT.webhookSecret,
    grantedScope: 'ACTIVITY:READ,CALENDAR:WRITE', routes: [calendar],
  });
  stack = await startStack({ ...intervalsIcuEnv(standin), JOB_POLL_MS: '20' });
});
test.after(async () => {
  await stack.close();
  await standin.close();
});

test('a workout scheduled for a connected user reaches intervals.icu with the connection\'s own token', async () => {
  const owner = await stack.userWithToken([]);
  const app = await createApplication(stack.store, owner.userId, { name: 'Coach app', redirect_uris: ['https://coach.example.com/cb'] });
  const user = await stack.userWithToken(['activities:read', 'workouts:read', 'workouts:write'], { appId: app.id });
  assert.is((await connectThroughPortal(stack.baseUrl, user.token)).landing, '/portal/manage-integrations?notice=connected');
  const start = new Date(Date.now() + 2 * 86_400_000).toISOString().slice(0, 10);
  const api = jsonClient(stack, user.token);
  const created = await api.post('/api/v1/workouts/schedule', {
    start: `${start}T07:00:00+02:00`,
    swf: { title: 'Tempo', sport: 'running', content: [{ type: 'step', effort: 'work', volume: { quantity: 'duration', value: 1200 }, intensity: { quantity: 'speed', value: 3.6 } }] },
  });
  assert.is(created.status, 200, JSON.stringify(created.body));
  const id = (created.body as { id: string }).id;
  assert.equal((created.body as { deliveries: { integration: string; status: string }[] }).deliveries.map((d) => [d.integration, d.status]), [['intervals_icu', 'pending']]);
  const delivered = await until('delivered', async () => {
    const [delivery] = ((await api.get(`/api/v1/workouts/schedule/${id}`)).body as { deliveries: { status: string; reason?: string }[] }).deliveries;
    if (delivery?.status === 'failed') throw new Error(`delivery failed: ${JSON.stringify(delivery)}`);
    return delivery?.status === 'delivered' ? delivery : undefined;
  }, 20_000);
  assert.is(delivered.status, 'delivered');
  const [event] = [...events.events.values()];
  assert.is(event?.external_id, id);
  assert.is(event?.category, 'WORKOUT');
  assert.is(event?.start_date_local, `${start}T07:00:00`, "the workout's local start");
});

test.run();
