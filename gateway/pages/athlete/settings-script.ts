/**
 * The settings page's script (routes/athlete-settings.ts serves it from this origin under a content-hashed
 * path, loaded with Subresource Integrity, as client-script.ts is for the other athlete pages). Progressive
 * enhancement only: while the page's `#derived` section says "recomputing" (after a change of markers, the
 * maps are refitted and the caches rebuilt), it polls the section's own address every second, with a
 * deadline, and swaps in the section the server rendered once it is ready (200; 202 means still
 * recomputing). Without script the section links to the reloaded page instead.
 * test/browser/athlete-settings.test.ts runs it in Chromium.
 */
import { createHash } from 'node:crypto';

export const SETTINGS_SCRIPT = String.raw`'use strict';
(function () {
  document.documentElement.classList.add('js');
  var POLL_MS = 1000, DEADLINE_MS = 120000;
  var started = Date.now();
  function pending() { return document.querySelector('#derived[data-state=recomputing]'); }
  function poll() {
    var section = pending();
    if (!section) return;
    if (Date.now() - started > DEADLINE_MS) {
      var note = section.querySelector('.recomputing span');
      if (note) note.textContent = 'Still recomputing. Reload the page in a minute to see the result.';
      section.setAttribute('aria-busy', 'false');
      return;
    }
    fetch(section.dataset.src, { headers: { accept: 'text/html' }, credentials: 'same-origin' })
      .then(function (response) {
        if (response.status === 200) return response.text();
        if (response.status === 202) return null;
        throw new Error('status ' + response.status);
      })
      .then(function (markup) {
        if (markup === null) return setTimeout(poll, POLL_MS);
        // The server's own rendering of the section (every value escaped there), parsed inertly.
        var parsed = new DOMParser().parseFromString(markup, 'text/html').getElementById('derived');
        if (parsed) section.replaceWith(document.importNode(parsed, true));
      })
      .catch(function () { setTimeout(poll, POLL_MS); });
  }
  poll();
})();
`;

const digest = createHash('sha384').update(SETTINGS_SCRIPT, 'utf8').digest();

/** Subresource Integrity of the script. */
export const SETTINGS_SCRIPT_INTEGRITY = `sha384-${digest.toString('base64')}`;

/** Its path: content-hashed, so it can be cached for good. */
export const SETTINGS_SCRIPT_PATH = `/training/assets/settings-${digest.toString('hex').slice(0, 12)}.js`;
