/**
 * The pages origin at start-up (issue 26 items 1 and 7; gateway/hosted-pages/pages-origin.ts): by default
 * the loopback twin of the service's host, never a guess on https, and never a host that shares the
 * service's cookies unless PAGES_SHARE_COOKIE_SCOPE says so.
 */
import { test } from '../support/uvu.js';
import * as assert from 'uvu/assert';
import { loadGatewayConfig } from '../../gateway/config.js';
import { ConfigError } from '../../domain/config-error.js';
import type { Env } from '../../domain/env.js';

function problems(env: Env): string {
  try {
    loadGatewayConfig(env);
  } catch (error) {
    assert.instance(error, ConfigError);
    return (error as ConfigError).problems.join('\n');
  }
  return assert.unreachable(`accepted ${JSON.stringify(env)}`) as never;
}

const pagesBase = (env: Env): string => loadGatewayConfig(env).pagesBase;

test('by default the pages live on the loopback twin of the service\'s host: localhost ↔ 127.0.0.1, other cookies', () => {
  assert.is(pagesBase({}), 'http://127.0.0.1:8081');
  assert.is(pagesBase({ PORT: '9000' }), 'http://127.0.0.1:9001');
  assert.is(pagesBase({ BASE_URL: 'http://localhost:8080', PAGES_PORT: '9100' }), 'http://127.0.0.1:9100');
  assert.is(pagesBase({ BASE_URL: 'http://threshold.localhost:8080' }), 'http://127.0.0.1:8081');
  assert.is(pagesBase({ BASE_URL: 'http://127.0.0.1:8080' }), 'http://localhost:8081');
  assert.is(pagesBase({ BASE_URL: 'http://[::1]:8080' }), 'http://localhost:8081');
  assert.is(pagesBase({ HOST: '::1' }), 'http://[::1]:8081', 'a service bound to ::1 alone is reached there');
});

test('an https BASE_URL without PAGES_BASE is refused: the pages listener speaks plain http, so nothing is guessed [item 7]', () => {
  for (const env of [{ BASE_URL: 'https://threshold.example.com' }, { BASE_URL: 'https://threshold.example.com', PAGES_SHARE_COOKIE_SCOPE: 'yes' }, { BASE_URL: 'https://localhost:8443' }]) {
    const found = problems(env);
    assert.match(found, 'PAGES_BASE must be set when BASE_URL is https');
    assert.match(found, 'speaks plain HTTP');
    assert.not.match(found, /https:\/\/[^ ]+:8081(?! would)/);
  }
  assert.is(pagesBase({ BASE_URL: 'https://threshold.example.com', PAGES_BASE: 'https://{slug}.pages.example.net' }), 'https://{slug}.pages.example.net');
});

test('an http host without a loopback twin needs PAGES_BASE, or the explicit PAGES_SHARE_COOKIE_SCOPE', () => {
  const found = problems({ BASE_URL: 'http://192.168.1.20:8080' });
  assert.match(found, 'PAGES_BASE must be set');
  assert.match(found, 'would share the service\'s cookies');
  assert.match(found, 'PAGES_SHARE_COOKIE_SCOPE=yes');
  assert.match(problems({ BASE_URL: 'http://threshold.lan:8080' }), 'threshold.lan has no loopback twin');
  assert.is(pagesBase({ BASE_URL: 'http://threshold.lan:8080', PAGES_SHARE_COOKIE_SCOPE: 'yes' }), 'http://threshold.lan:8081');
  assert.is(pagesBase({ BASE_URL: 'http://threshold.lan:8080', PAGES_BASE: 'http://pages.internal:8081' }), 'http://pages.internal:8081');
});

test('a PAGES_BASE that shares the service\'s cookie scope is refused with the reason, unless the operator says so', () => {
  const cases: [string, string, string][] = [
    ['http://localhost:8080', 'http://localhost:8081', 'the same host name localhost'],
    ['https://threshold.example.com', 'https://threshold.example.com:8443', 'the same host name threshold.example.com'],
    ['https://threshold.example.com', 'https://pages.threshold.example.com', 'is a subdomain of threshold.example.com'],
    ['https://threshold.example.com', 'https://{slug}.threshold.example.com', 'is the parent domain of every page host'],
    ['https://app.threshold.example.com', 'https://threshold.example.com', 'app.threshold.example.com is a subdomain of the pages\''],
    ['https://a.pages.example.com', 'https://{slug}.pages.example.com', 'is a subdomain of the pages\''],
    ['http://threshold.example.com', 'http://pages.example.com', 'both sit under example.com and BASE_URL is http'],
    ['http://127.0.0.1:8080', 'http://127.0.0.1:9000/pages', 'the same host 127.0.0.1'],
    ['http://threshold.localhost:8080', 'http://localhost:8081', 'is a subdomain'],
  ];
  for (const [base, pages, reason] of cases) {
    const found = problems({ BASE_URL: base, PAGES_BASE: pages });
    assert.match(found, 'PAGES_BASE must not share the service\'s cookies', `${base} / ${pages}`);
    assert.match(found, reason, `${base} / ${pages}: ${found}`);
    assert.match(found, 'PAGES_SHARE_COOKIE_SCOPE=yes');
    assert.is(pagesBase({ BASE_URL: base, PAGES_BASE: pages, PAGES_SHARE_COOKIE_SCOPE: 'yes' }), pages, 'the explicit override admits it');
  }
});

test('pages on a host of their own are accepted: another domain, an https sibling (__Host- cookies), the loopback twin', () => {
  const accepted: [string, string][] = [
    ['https://threshold.example.com', 'https://pages.example.com'],
    ['https://threshold.example.com', 'https://{slug}.pages.example.com'],
    ['https://threshold.example.com', 'https://{slug}.threshold-pages.example.net'],
    ['http://threshold.lan:8080', 'http://pages.lan:8081'],
    ['http://localhost:8080', 'http://127.0.0.1:8081'],
    ['http://127.0.0.1:8080', 'http://127.0.0.2:8081'],
  ];
  for (const [base, pages] of accepted) assert.is(pagesBase({ BASE_URL: base, PAGES_BASE: pages }), pages, `${base} / ${pages}`);
});

test('the service\'s own origin is refused even with the override, and the override reads as a boolean', () => {
  assert.match(problems({ BASE_URL: 'http://localhost:8080', PAGES_BASE: 'http://localhost:8080', PAGES_SHARE_COOKIE_SCOPE: 'yes' }), 'must not be on the service\'s own origin');
  assert.match(problems({ PAGES_SHARE_COOKIE_SCOPE: 'maybe' }), "PAGES_SHARE_COOKIE_SCOPE must be true or false (got 'maybe')");
});

test('every problem is reported at once: a cookie-sharing PAGES_BASE beside another bad setting', () => {
  const found = problems({ BASE_URL: 'http://localhost:8080', PAGES_BASE: 'http://localhost:8081', LOG_LEVEL: 'loud' });
  assert.match(found, 'LOG_LEVEL');
  assert.match(found, 'PAGES_BASE must not share');
});

test.run();
