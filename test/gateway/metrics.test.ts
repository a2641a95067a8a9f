/**
 * `/metrics` of the service in one process (`npm start`'s stack): after a burst of requests it shows
 * every metric issue 16 lists (the shared checks of test/support/metrics-scrape.ts), each process metric
 * once — the gateway's collectors cover the engine in the same process, which adds none — and it is
 * closed behind METRICS_TOKEN. Separate processes: metrics-processes.test.ts.
 */
import { suite } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { startStack, type TestStack } from '../support/stack.js';
import { assertBurstShown, requestBurst, scrape } from '../support/metrics-scrape.js';

const metrics = suite('metrics endpoint');

metrics('a scrape after a burst of requests shows them by route, with the engine, pool, jobs and webhook backlog', async () => {
  const stack: TestStack = await startStack();
  try {
    const { token } = await stack.userWithToken(['activities:read', 'activities:write']);
    const activityId = await requestBurst(stack, token);
    assertBurstShown(await scrape(stack), activityId, { poolThreads: 2 });
  } finally {
    await stack.close();
  }
});

metrics('in one process, each process metric appears once and none is labelled as the engine\'s', async () => {
  const stack = await startStack();
  try {
    const text = await scrape(stack);
    const resident = text.split('\n').filter((line) => line.startsWith('process_resident_memory_bytes'));
    assert.is(resident.length, 1, resident.join('\n'));
    assert.match(resident[0]!, /^process_resident_memory_bytes \d+$/);
    assert.not.match(text, 'process="engine"');
  } finally {
    await stack.close();
  }
});

metrics('with METRICS_TOKEN set, a scrape without the token or with another is refused', async () => {
  const stack = await startStack({ METRICS_TOKEN: 'scrape-secret-0123456789' });
  try {
    assert.is((await stack.get('/metrics')).status, 401);
    assert.is((await stack.get('/metrics', 'wrong-secret')).status, 401);
    assert.match(await scrape(stack, 'scrape-secret-0123456789'), 'threshold_http_request_duration_seconds_count{method="GET",route="/metrics",status="401"} 2');
  } finally {
    await stack.close();
  }
});

metrics.run();
