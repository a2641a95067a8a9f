/**
 * Redirect URIs: registration (redirectUriProblem, createApplication's 422) and matching
 * (matchRedirectUri), one bracketed tag per AUTH.md "Redirect URIs" item.
 */
import { test } from '../../support/uvu.js';
import * as assert from 'uvu/assert';
import { isLoopbackRedirect, matchRedirectUri, redirectUriProblem } from '../../../gateway/auth/redirect-uris.js';
import { createApplication, createUser } from '../../../gateway/services/accounts.js';
import { ValidationError } from '../../../gateway/errors.js';
import { openStore } from '../../../storage/open-store.js';

const APP = 'https://app.example.com/cb';

function admits(registered: string | string[], requested: string): void {
  const list = Array.isArray(registered) ? registered : [registered];
  assert.ok(matchRedirectUri(list, requested), `${list.join(' ')} should admit ${requested}`);
}

function refuses(registered: string | string[], requested: string): void {
  const list = Array.isArray(registered) ? registered : [registered];
  assert.not.ok(matchRedirectUri(list, requested), `${list.join(' ')} should refuse ${requested}`);
}

function unregistrable(uri: string): void {
  assert.type(redirectUriProblem(uri), 'string', `${uri} should not be registrable`);
}

// ---- Registration ----

test('accepts claimed https, loopback http and private-use custom schemes at registration', () => {
  for (const uri of [
    'https://app.example.com/cb', 'https://app.example.com', 'https://app.example.com:8443/cb', 'https://app.example.com/cb?tenant=7',
    'http://localhost', 'http://localhost:3000/cb', 'http://127.0.0.1/cb', 'http://127.0.0.1:65535/', 'http://[::1]:8080/cb',
    'com.example.app:/callback', 'myapp://cb', 'myapp:callback', 'https://app.example.com/caf%C3%A9',
  ]) {
    assert.is(redirectUriProblem(uri), null, uri);
  }
});

test('accepts scheme and host in upper case, since both are compared lowercased', () => {
  assert.is(redirectUriProblem('HTTPS://App.Example.COM/cb'), null);
  assert.is(redirectUriProblem('HTTP://LOCALHOST:3000/cb'), null);
});

test('rejects public plain http at registration [public http]', () => {
  for (const uri of ['http://app.example.com/cb', 'http://192.168.1.10/cb', 'http://10.0.0.1:8080/', 'http://0.0.0.0/cb']) unregistrable(uri);
});

test('rejects a redirect URI with a fragment, even an empty one [fragments]', () => {
  for (const uri of ['https://app.example.com/cb#x', 'https://app.example.com/cb#', 'http://localhost/#/cb', 'myapp://cb#x']) unregistrable(uri);
});

test('rejects user information in the authority [authority tricks]', () => {
  for (const uri of ['https://user@app.example.com/cb', 'https://user:pw@app.example.com/cb', 'https://app.example.com@evil.com/cb', 'https://@app.example.com/cb', 'http://user@localhost/cb', 'myapp://user@cb']) {
    unregistrable(uri);
  }
});

test('rejects dot-segments, encoded separators and double encoding at registration [traversal]', () => {
  for (const uri of [
    'https://app.example.com/a/../b', 'https://app.example.com/a/./b', 'https://app.example.com/cb/..', 'https://app.example.com/cb/.',
    'https://app.example.com/a/%2e%2e/b', 'https://app.example.com/a/%2E%2E/b', 'https://app.example.com/a/.%2e/b', 'https://app.example.com/a%2fb',
    'https://app.example.com/a%2Fb', 'https://app.example.com/a%5cb', 'https://app.example.com/a%5Cb', 'https://app.example.com/a%252fb',
    'https://app.example.com/a%252e%252e/b', 'https://app.example.com/a%255cb', 'https://app.example.com/a%00b', 'https://app.example.com/%zz',
    'https://app.example.com/a\\b', 'https://app.example.com\\@evil.com/', 'https://app.example.com//evil.com', 'myapp://cb/../x', 'com.example.app:/a/%2e%2e/b',
  ]) {
    unregistrable(uri);
  }
});

test('rejects white space and control characters anywhere [authority tricks]', () => {
  for (const uri of [
    ' https://app.example.com/cb', 'https://app.example.com/cb ', 'https://app.example.com/c b', 'https://app.example.com/cb\n',
    'https://app.example.com/\tcb', 'java\tscript:alert(1)', 'https://app.example.com/cb\u0000', 'https://app.example.com/cb\u200b',
    'https://app.example.com/\u202ecb',
  ]) {
    unregistrable(uri);
  }
});

test('rejects dangerous schemes in any case [dangerous schemes]', () => {
  for (const uri of [
    'javascript:alert(1)', 'JavaScript:alert(1)', 'javascript://app.example.com/%0aalert(1)', 'data:text/html,x', 'vbscript:msgbox(1)',
    'file:///etc/passwd', 'blob:https://app.example.com/1234', 'about:blank', 'ftp://app.example.com/cb', 'ws://localhost/cb',
    'wss://app.example.com/cb', 'view-source:https://app.example.com/', 'filesystem:https://app.example.com/x', 'intent://cb#Intent;end',
  ]) {
    unregistrable(uri);
  }
});

test('rejects whatever URL normalisation would change [normalisation]', () => {
  for (const uri of [
    'http://127.1/', 'http://0x7f000001/', 'http://2130706433/', 'http://0177.0.0.1/', 'http://[0:0:0:0:0:0:0:1]/',
    'https://app.example.com:443/cb', 'http://localhost:80/cb', 'https://app.example.com:/cb', 'https://app.example.com:08443/cb',
    'https://app.example.com/cb?', 'https://app.example.com/{cb}', "https://app.example.com/cb?x='", 'https://app.%65xample.com/cb',
    'https:app.example.com/cb', 'https:/app.example.com/cb', 'https:///app.example.com/cb', 'https://app.example.com./cb',
  ]) {
    unregistrable(uri);
  }
});

test('rejects IDN and punycode hosts [look-alike hosts]', () => {
  for (const uri of ['https://аpp.example.com/cb', 'https://xn--pp-8kc.example.com/cb', 'https://ａｐｐ.example.com/cb', 'https://app.exаmple.com/cb']) unregistrable(uri);
});

test('rejects loopback look-alikes as public plain http [loopback look-alikes]', () => {
  for (const uri of ['http://localhost.evil.com/cb', 'http://127.0.0.1.nip.io/cb', 'http://127.0.0.2/cb', 'http://localhost./cb', 'http://localhostx/cb']) unregistrable(uri);
});

test('rejects empty, relative, over-long and scheme-only URIs', () => {
  for (const uri of ['', 'not a uri', '/cb', '//app.example.com/cb', 'app.example.com/cb', 'myapp:', 'myapp://', `https://app.example.com/${'a'.repeat(2048)}`]) unregistrable(uri);
});

test('createApplication refuses a bad redirect URI with a 422 naming its index [registration]', async () => {
  const store = await openStore({ mongodbUri: null, sqliteFile: ':memory:' });
  try {
    const owner = await createUser(store, { email: 'owner@example.com' });
    for (const uri of ['http://app.example.com/cb', 'https://app.example.com/cb#x', 'https://app.example.com/a/%2e%2e/b', 'https://app.example.com/cb/..;/x', 'javascript:alert(1)']) {
      try {
        await createApplication(store, owner.id, { name: 'Bad redirect', redirect_uris: ['https://app.example.com/ok', uri] });
        assert.unreachable(`${uri} was accepted`);
      } catch (error) {
        assert.instance(error, ValidationError, uri);
        assert.is((error as ValidationError).status, 422);
        assert.equal((error as ValidationError).issues[0]?.loc, ['body', 'redirect_uris', 1]);
      }
    }
    const created = await createApplication(store, owner.id, { name: 'Good redirect', redirect_uris: [APP, 'myapp://cb'] });
    assert.equal(created.redirect_uris, [APP, 'myapp://cb']);
    assert.equal((await store.applications.get(created.id))?.redirect_uris, [APP, 'myapp://cb']);
  } finally {
    await store.close();
  }
});

// ---- Matching: https ----

test('admits the registered redirect_uri itself and paths under it [segment-boundary prefixes]', () => {
  admits(APP, 'https://app.example.com/cb');
  admits(APP, 'https://app.example.com/cb/');
  admits(APP, 'https://app.example.com/cb/x');
  admits(APP, 'https://app.example.com/cb/x/y');
  admits('https://app.example.com/cb/', 'https://app.example.com/cb/x');
});

test('rejects a redirect_uri that only shares a string prefix with the registered path [segment-boundary prefixes]', () => {
  refuses(APP, 'https://app.example.com/cbx');
  refuses(APP, 'https://app.example.com/cb.evil');
  refuses(APP, 'https://app.example.com/cb;x');
  refuses(APP, 'https://app.example.com/cb-x/y');
  refuses(APP, 'https://app.example.com/c');
  refuses(APP, 'https://app.example.com/');
  refuses('https://app.example.com/cb/', 'https://app.example.com/cb');
});

test('admits every path when the registered path is / or empty', () => {
  for (const registered of ['https://app.example.com', 'https://app.example.com/']) {
    admits(registered, 'https://app.example.com');
    admits(registered, 'https://app.example.com/');
    admits(registered, 'https://app.example.com/anything/at/all');
  }
});

test('compares the path case-sensitively and scheme and host case-insensitively', () => {
  refuses(APP, 'https://app.example.com/CB');
  refuses('https://app.example.com/Cb', 'https://app.example.com/cb');
  admits(APP, 'HTTPS://APP.EXAMPLE.COM/cb');
  admits('https://App.Example.com/cb', 'https://app.example.com/cb/x');
});

test('rejects a redirect_uri outside the registered path [traversal]', () => {
  for (const requested of [
    'https://app.example.com/cb/../admin', 'https://app.example.com/cb/..', 'https://app.example.com/cb/./x', 'https://app.example.com/cb/%2e%2e/admin',
    'https://app.example.com/cb/%2E%2E/admin', 'https://app.example.com/cb/.%2e/admin', 'https://app.example.com/cb/%2e./admin',
    'https://app.example.com/cb%2f..%2fadmin', 'https://app.example.com/cb%2F..%2Fadmin', 'https://app.example.com/cb/..%2fadmin',
    'https://app.example.com/cb%5c..%5cadmin', 'https://app.example.com/cb/%252e%252e/admin', 'https://app.example.com/cb%252f..%252fadmin',
    'https://app.example.com/cb\\..\\admin', 'https://app.example.com/cb/..\\admin', 'https://app.example.com/cb/%c0%ae%c0%ae/admin',
    'https://app.example.com/cb/%C0%AF/admin', 'https://app.example.com/cb/%e0%80%ae%e0%80%ae/admin', 'https://app.example.com/cb%ef%bc%8f..%ef%bc%8fadmin',
    'https://app.example.com/cb/%ef%bc%8e%ef%bc%8e/admin', 'https://app.example.com/cb/%e2%80%a5/admin', 'https://app.example.com/cb/%e2%80%ae/x',
    'https://app.example.com/cb/%ff/x',
    'https://app.example.com/cb//evil.com', 'https://app.example.com/cb/%00/x',
  ]) {
    refuses(APP, requested);
  }
});

/**
 * Path parameters: servlet containers (Tomcat, Jetty) cut `;…` off each segment before routing, so
 * `/cb/..;/x` reaches `/x` there while it looks like a sub-path of `/cb` here; a `;` in any form is
 * refused in the path of an https or loopback redirect URI.
 */
const PATH_PARAMETER_FORMS = ['..;', ';', '%3b', '%3B', ';jsessionid=1', '%3bjsessionid=1', '..%3b', '..%3B', '.;', 'x;y', 'x%3By', '%2e%2e;', ';x=..'];

test('rejects a path parameter (;) in the first, a middle or the last segment, in any encoding [traversal]', () => {
  for (const form of PATH_PARAMETER_FORMS) {
    for (const requested of [
      `https://app.example.com/cb/${form}/x`, `https://app.example.com/cb/${form}`, `https://app.example.com/cb/a/${form}/b`,
      `https://app.example.com/cb${form}`, `https://app.example.com/cb/x${form}`, `http://localhost:3000/cb/${form}/x`,
    ]) {
      refuses([APP, 'https://app.example.com', 'http://localhost/cb'], requested);
    }
    for (const registered of [`https://app.example.com/${form}/cb`, `https://app.example.com/cb/${form}`, `https://app.example.com/cb${form}`, `http://localhost/cb/${form}`]) {
      unregistrable(registered);
      refuses(registered, registered);
    }
  }
  refuses(APP, 'https://app.example.com/cb/..;/x');
  refuses(APP, 'https://app.example.com/cb/;x');
  refuses('https://app.example.com', 'https://app.example.com/;jsessionid=ABC');
});

test('keeps a ; in the query, and in a custom scheme matched as a whole string [custom schemes exact]', () => {
  admits('https://app.example.com/cb?a=1;b=2', 'https://app.example.com/cb/x?a=1;b=2');
  admits('myapp://cb;x', 'myapp://cb;x');
  refuses('myapp://cb;x', 'myapp://cb;y');
});

test('rejects user information and look-alike hosts [authority tricks]', () => {
  for (const requested of [
    'https://app.example.com@evil.com/cb', 'https://app.example.com:443@evil.com/cb', 'https://user@app.example.com/cb',
    'https://user:pw@app.example.com/cb', 'https://evil.com@app.example.com/cb', 'https://app.example.com.evil.com/cb',
    'https://evil.com?app.example.com/cb', 'https://evil.com/app.example.com/cb', 'https://evilapp.example.com/cb',
    'https://evil.app.example.com/cb', 'https://example.com/cb', 'https://app.example.com./cb', 'https://app.example.com%2f@evil.com/cb',
    'https://app.example.com\\@evil.com/cb', 'https://аpp.example.com/cb', 'https://xn--pp-8kc.example.com/cb', 'https://ａｐｐ.example.com/cb',
  ]) {
    refuses(APP, requested);
  }
});

test('rejects a changed port on https, including the default port written out [port changes]', () => {
  refuses(APP, 'https://app.example.com:8443/cb');
  refuses(APP, 'https://app.example.com:443/cb');
  refuses('https://app.example.com:8443/cb', 'https://app.example.com/cb');
  refuses('https://app.example.com:8443/cb', 'https://app.example.com:9443/cb');
  admits('https://app.example.com:8443/cb', 'https://app.example.com:8443/cb/x');
});

test('rejects a changed scheme [scheme changes]', () => {
  refuses(APP, 'http://app.example.com/cb');
  refuses('http://localhost/cb', 'https://localhost/cb');
  refuses('https://localhost/cb', 'http://localhost/cb');
  refuses(APP, 'myapp://app.example.com/cb');
  refuses('myapp://cb', 'https://cb');
  refuses(APP, 'wss://app.example.com/cb');
});

test('rejects a query added, dropped or changed; admits the registered query exactly [query additions]', () => {
  refuses(APP, 'https://app.example.com/cb?x=1');
  refuses(APP, 'https://app.example.com/cb?');
  refuses(APP, 'https://app.example.com/cb/x?next=https://evil.com');
  refuses('http://localhost/cb', 'http://localhost:3000/cb?x=1');
  const withQuery = 'https://app.example.com/cb?tenant=7';
  admits(withQuery, 'https://app.example.com/cb?tenant=7');
  admits(withQuery, 'https://app.example.com/cb/x?tenant=7');
  refuses(withQuery, 'https://app.example.com/cb');
  refuses(withQuery, 'https://app.example.com/cb?tenant=8');
  refuses(withQuery, 'https://app.example.com/cb?tenant=7&x=1');
  refuses(withQuery, 'https://app.example.com/cb?x=1&tenant=7');
});

test('rejects a requested fragment, even when the rest matches [fragments]', () => {
  refuses(APP, 'https://app.example.com/cb#');
  refuses(APP, 'https://app.example.com/cb#x');
  refuses(APP, 'https://app.example.com/cb/#/x');
  refuses('myapp://cb', 'myapp://cb#x');
  refuses('http://localhost', 'http://localhost:3000/#cb');
});

test('rejects requests that URL normalisation would change, even when they land on a registered URI [normalisation]', () => {
  refuses('http://127.0.0.1/cb', 'http://127.1/cb');
  refuses('http://127.0.0.1/cb', 'http://0x7f000001/cb');
  refuses('http://127.0.0.1/cb', 'http://2130706433/cb');
  refuses(APP, 'https://app.%65xample.com/cb');
  refuses(APP, 'https:app.example.com/cb');
  refuses(APP, 'https:///app.example.com/cb');
  refuses('https://app.example.com/caf%C3%A9', 'https://app.example.com/café');
  refuses(APP, ' https://app.example.com/cb');
  refuses(APP, 'https://app.example.com/cb\t');
});

// ---- Matching: loopback ----

test('admits any port on a loopback redirect, with or without a registered port [loopback]', () => {
  admits('http://localhost', 'http://localhost:53124/cb');
  admits('http://localhost', 'http://localhost');
  admits('http://localhost/cb', 'http://localhost:8080/cb/x');
  admits('http://localhost:3000/cb', 'http://localhost/cb');
  admits('http://localhost:3000/cb', 'http://localhost:4000/cb');
  admits('http://127.0.0.1/cb', 'http://127.0.0.1:50000/cb');
  admits('http://[::1]/cb', 'http://[::1]:50000/cb');
});

test('keeps path and segment rules on a loopback redirect [segment-boundary prefixes]', () => {
  refuses('http://localhost:3000/cb', 'http://localhost:3000/cbx');
  refuses('http://127.0.0.1/cb', 'http://127.0.0.1:9000/other');
  refuses('http://localhost/cb', 'http://localhost:3000/cb/../admin');
});

test('rejects loopback look-alikes and a different loopback host [loopback look-alikes]', () => {
  for (const requested of [
    'http://localhost.evil.com/cb', 'http://localhost.evil.com:3000/cb', 'http://127.0.0.1.nip.io/cb', 'http://127.0.0.2/cb',
    'http://127.1/cb', 'http://0x7f000001/cb', 'http://localhost./cb', 'http://evil.com/cb', 'http://localhost@evil.com/cb',
    'http://evil.com@localhost/cb', 'http://[::1]/cb', 'http://[::ffff:127.0.0.1]/cb', 'http://0.0.0.0/cb',
  ]) {
    refuses(['http://localhost/cb', 'http://127.0.0.1/cb'], requested);
  }
  refuses('http://localhost/cb', 'http://127.0.0.1/cb');
  refuses('http://127.0.0.1/cb', 'http://localhost/cb');
  refuses('http://[::1]/cb', 'http://localhost/cb');
});

test('keeps the port on https to a loopback host [port changes]', () => {
  refuses('https://localhost:8443/cb', 'https://localhost:9443/cb');
  admits('https://localhost:8443/cb', 'https://localhost:8443/cb');
});

test('tells loopback redirects apart from the rest', () => {
  for (const uri of ['http://localhost', 'http://localhost:3000/cb', 'http://127.0.0.1:9/x', 'http://[::1]:8080/cb', 'https://localhost:8443/cb', 'HTTP://LOCALHOST/cb']) {
    assert.ok(isLoopbackRedirect(uri), uri);
  }
  for (const uri of [APP, 'myapp://localhost', 'http://localhost.evil.com/cb', 'http://127.0.0.2/cb', 'http://127.1/', 'not a uri', '']) {
    assert.not.ok(isLoopbackRedirect(uri), uri);
  }
});

// ---- Matching: custom schemes ----

test('matches private-use custom schemes exactly, whole string [custom schemes exact]', () => {
  admits('com.example.app:/callback', 'com.example.app:/callback');
  admits('myapp://cb', 'myapp://cb');
  refuses('com.example.app:/callback', 'com.example.app:/callback/x');
  refuses('com.example.app:/callback', 'com.example.app:/callbackx');
  refuses('com.example.app:/callback', 'com.example.app:/Callback');
  refuses('com.example.app:/callback', 'com.example.app:/callback?x=1');
  refuses('com.example.app:/callback', 'com.example.app://callback');
  refuses('com.example.app:/callback', 'com.example.evil:/callback');
  refuses('myapp://cb', 'myapp://cb/');
  refuses('myapp://cb', 'myapp://cb/x');
  refuses('myapp://cb', 'myapp://CB');
  refuses('myapp://cb', 'MyApp://cb');
  refuses('myapp://cb', 'myapp://evil@cb');
  refuses('myapp://cb', 'myapp://cb/../cb');
});

test('rejects dangerous schemes even when registered by hand [dangerous schemes]', () => {
  for (const uri of ['javascript:alert(1)', 'data:text/html,x', 'vbscript:msgbox(1)', 'file:///etc/passwd', 'blob:https://app.example.com/1', 'about:blank']) {
    refuses(uri, uri);
    refuses(APP, uri);
  }
  refuses(APP, 'JAVASCRIPT:alert(1)');
  refuses(APP, 'javascript://app.example.com/cb%0aalert(1)');
});

// ---- Matching: the list ----

test('admits a redirect_uri matching any one of several registrations and skips unparseable ones', () => {
  const registered = ['not a uri', 'http://evil.com/cb', 'myapp://cb', APP];
  admits(registered, 'https://app.example.com/cb/x');
  admits(registered, 'myapp://cb');
  refuses(registered, 'http://evil.com/cb');
  refuses(registered, 'not a uri');
  refuses([], APP);
});

test('rejects an empty or over-long requested redirect_uri', () => {
  refuses('https://app.example.com', '');
  refuses('https://app.example.com', `https://app.example.com/${'a'.repeat(2100)}`);
});

test.run();
