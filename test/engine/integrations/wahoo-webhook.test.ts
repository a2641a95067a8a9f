/**
 * Wahoo's `workout_summary` webhook as the stand-in delivers it to a receiver using our parsing: a body
 * without our `webhook_token` is dropped, a duplicate delivery is processed once, and a non-200 is
 * delivered again 30 minutes later on the stand-in's clock.
 */
import assert from 'node:assert/strict';
import { suite } from '../../support/uvu.js';
import { parseWahooWebhook } from '../../../engine/integrations/wahoo/webhook.js';
import { startPushReceiver, type PushReceiver } from '../../support/standins/push-receiver.js';
import { startWahooStandin, wahooWorkouts, type WahooStandin } from '../../support/standins/wahoo.js';

interface Context {
  wahoo: WahooStandin;
  receiver: PushReceiver;
  processed: string[];
  dropped: string[];
  answer: number;
}
const webhook = suite<Context>('wahoo webhook');

webhook.before(async (context) => {
  context.wahoo = await startWahooStandin();
  context.processed = [];
  context.dropped = [];
  context.answer = 200;
  const seen = new Set<string>();
  context.receiver = await startPushReceiver((_headers, body) => {
    if (context.answer !== 200) return context.answer;
    const parsed = parseWahooWebhook(body, context.wahoo.webhookToken);
    if (parsed.kind === 'ignored') {
      context.dropped.push(parsed.reason);
      return parsed.reason.startsWith('webhook_token') ? 401 : 200;
    }
    if (!seen.has(parsed.deliveryKey)) {
      seen.add(parsed.deliveryKey);
      context.processed.push(`${parsed.wahooUserId}:${parsed.workout?.id}:${parsed.summary.fileUrl !== null}`);
    }
    return 200;
  });
  context.wahoo.setWebhookUrl(context.receiver.url);
  context.wahoo.addUser(1, { workouts: wahooWorkouts(3, context.wahoo.clock.now()).map((workout) => ({ ...workout, summary: null })) });
});
webhook.after(async ({ wahoo, receiver }) => {
  await wahoo.close();
  await receiver.close();
});
webhook.before.each((context) => {
  context.processed.length = 0;
  context.dropped.length = 0;
  context.answer = 200;
  context.wahoo.deliveries.length = 0; // a refused body is retried by Wahoo; each test starts with none queued
});

webhook('a finished workout arrives with its summary, file URL and workout', async (context) => {
  context.wahoo.finishWorkout(1, 1);
  assert.deepEqual(await context.wahoo.deliver(), [200]);
  assert.deepEqual(context.processed, ['1:1:true']);
});

webhook('a body without our webhook_token is dropped, never processed', async (context) => {
  context.wahoo.finishWorkout(1, 2, 'forged-token');
  assert.deepEqual(await context.wahoo.deliver(), [401]);
  assert.deepEqual(context.processed, []);
  assert.deepEqual(context.dropped, ['webhook_token does not match']);
  assert.equal(context.wahoo.deliveries.length, 1, 'Wahoo will retry it, and it will be dropped again');
});

webhook('the same delivery twice is processed once', async (context) => {
  context.wahoo.finishWorkout(1, 3);
  context.wahoo.finishWorkout(1, 3);
  assert.deepEqual(await context.wahoo.deliver(), [200, 200]);
  assert.deepEqual(context.processed, ['1:3:true']);
});

webhook('a non-200 answer is delivered again 30 minutes later', async (context) => {
  context.wahoo.user(1).workouts.push(...wahooWorkouts(1, context.wahoo.clock.now(), 9));
  context.answer = 503;
  context.wahoo.finishWorkout(1, 9);
  assert.deepEqual(await context.wahoo.deliver(), [503]);
  context.answer = 200;
  assert.deepEqual(await context.wahoo.deliver(), [], 'nothing due yet');
  context.wahoo.clock.advance(30 * 60_000);
  assert.deepEqual(await context.wahoo.deliver(), [200]);
  assert.deepEqual(context.processed, ['1:9:true']);
});

webhook('an event that is not a workout summary, or a body that is not an object, is ignored', () => {
  assert.equal(parseWahooWebhook({ event_type: 'plan_updated', webhook_token: 't' }, 't').kind, 'ignored');
  assert.equal(parseWahooWebhook('text', 't').kind, 'ignored');
  assert.equal(parseWahooWebhook({ event_type: 'workout_summary', webhook_token: '' }, '').kind, 'ignored', 'an unset token accepts nothing');
});

webhook.run();
