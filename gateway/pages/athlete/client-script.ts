/**
 * The athlete pages' only script, served by this gateway from its own origin (routes/athlete-pages.ts) under
 * a content-hashed path and loaded with Subresource Integrity; the pages' CSP allows `script-src 'self'` and
 * nothing inline. It is progressive enhancement: hover read-outs on the charts, and drag-and-drop upload
 * with live status (polling the page's status endpoint with a deadline) and, for an import of many files,
 * batches of the server's per-request limit under one progress bar. Without it every page works, and
 * upload falls back to the plain file-input form. It writes user-supplied text with `textContent` only.
 *
 * Kept as a string rather than a compiled module: the gateway's build has no DOM types and the container
 * image ships only the compiled tree. test/browser/athlete-pages.test.ts runs it in Chromium.
 */
import { createHash } from 'node:crypto';

export const CLIENT_SCRIPT = String.raw`'use strict';
(function () {
  document.documentElement.classList.add('js');

  function visibleSvg(figure) {
    var all = figure.querySelectorAll('svg.chart');
    for (var i = 0; i < all.length; i++) if (all[i].getBoundingClientRect().width > 0) return all[i];
    return null;
  }
  function viewX(svg, event) {
    var box = svg.getBoundingClientRect();
    return (event.clientX - box.left) * (svg.viewBox.baseVal.width / box.width);
  }
  function clock(seconds) {
    var s = Math.round(seconds), h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
    return (h > 0 ? h + ':' + String(m).padStart(2, '0') : String(m)) + ':' + String(r).padStart(2, '0');
  }
  function span(seconds) {
    if (seconds < 60) return seconds + ' s';
    if (seconds < 3600) return (seconds % 60 === 0 ? seconds / 60 + ' min' : Math.floor(seconds / 60) + ' min ' + (seconds % 60) + ' s');
    var m = Math.round((seconds % 3600) / 60);
    return Math.floor(seconds / 3600) + ' h' + (m ? ' ' + m + ' min' : '');
  }
  function track(figure, describe) {
    var readout = figure.querySelector('.readout');
    figure.addEventListener('pointermove', function (event) {
      var svg = visibleSvg(figure);
      if (!svg) return;
      var left = Number(svg.dataset.left), plot = Number(svg.dataset.plot), x = viewX(svg, event);
      var cursor = svg.querySelector('.cursor');
      if (x < left || x > left + plot) { cursor.setAttribute('visibility', 'hidden'); readout.textContent = ''; return; }
      cursor.setAttribute('x1', x); cursor.setAttribute('x2', x); cursor.setAttribute('visibility', 'visible');
      readout.textContent = describe(svg, (x - left) / plot);
    });
    figure.addEventListener('pointerleave', function () {
      var svg = visibleSvg(figure);
      if (svg) svg.querySelector('.cursor').setAttribute('visibility', 'hidden');
      readout.textContent = '';
    });
  }

  document.querySelectorAll('figure[data-chart=series]').forEach(function (figure) {
    track(figure, function (svg, fraction) {
      var count = Number(svg.dataset.buckets), bucket = Math.min(count - 1, Math.floor(fraction * count));
      var parts = [clock(fraction * Number(svg.dataset.duration))];
      svg.querySelectorAll('g.panel').forEach(function (panel) {
        var value = panel.dataset.values.split(',')[bucket];
        if (value) parts.push(panel.dataset.label + ' ' + value + ' ' + panel.dataset.unit);
      });
      return parts.join('  ·  ');
    });
  });

  document.querySelectorAll('figure[data-chart=mean-max]').forEach(function (figure) {
    track(figure, function (svg, fraction) {
      var seconds = Math.exp(fraction * Math.log(Number(svg.dataset.logMax)));
      var best = null;
      svg.dataset.points.split(',').forEach(function (pair) {
        // "duration:value", where a pace value has colons of its own ("300:4:35").
        var at = pair.indexOf(':'), d = Number(pair.slice(0, at));
        if (best === null || Math.abs(Math.log(d) - Math.log(seconds)) < Math.abs(Math.log(best[0]) - Math.log(seconds))) best = [d, pair.slice(at + 1)];
      });
      return best ? span(best[0]) + ': ' + best[1] + ' ' + svg.dataset.unit : '';
    });
  });

  var form = document.getElementById('upload-form');
  if (!form) return;
  var zone = form.querySelector('.drop'), input = form.querySelector('input[type=file]'), live = document.getElementById('live');
  var LABELS = { processing: 'Processing', processed: 'Processed', failed: 'Failed', uploading: 'Uploading' };
  var POLL_MS = 1000, DEADLINE_MS = 180000;

  function row(name) {
    var li = document.createElement('li'), file = document.createElement('div'), title = document.createElement('strong');
    var note = document.createElement('span'), state = document.createElement('div'), badge = document.createElement('span');
    title.textContent = name; file.className = 'file'; file.append(title, note);
    state.className = 'state'; state.append(badge); li.append(file, state);
    live.prepend(li);
    var none = document.getElementById('no-uploads');
    if (none) none.remove();
    var view = { li: li, note: note, state: state, badge: badge, set: function (status, text, error) {
      badge.className = 'badge ' + (status === 'uploading' ? 'processing' : status);
      badge.textContent = LABELS[status] || status;
      note.textContent = text || ''; note.className = error ? 'error-text' : '';
    } };
    view.set('uploading', 'Sending to the server…');
    return view;
  }
  function show(view, source) {
    if (source.status === 'processed') {
      var count = source.activity_ids.length;
      view.activities = count;
      view.set('processed', count === 1 ? '1 activity' : count + ' activities');
      if (count > 0 && !view.state.querySelector('a')) {
        var link = document.createElement('a');
        link.href = '/training/activities/' + encodeURIComponent(source.activity_ids[0]);
        link.textContent = 'Open';
        view.state.prepend(link);
      }
    } else if (source.status === 'failed') {
      view.set('failed', source.error ? source.error.message || source.error.code : 'The file could not be read.', true);
    } else {
      view.set('processing', 'Reading the file…');
    }
  }
  function poll(views, deadline) {
    var waiting = Object.keys(views);
    if (waiting.length === 0) return;
    if (Date.now() > deadline) {
      waiting.forEach(function (id) { views[id].set('processing', 'Still processing. It will show under Recent uploads when done.'); });
      return;
    }
    var query = waiting.map(function (id) { return 'id=' + encodeURIComponent(id); }).join('&');
    fetch('/training/upload/status?' + query, { headers: { accept: 'application/json' }, credentials: 'same-origin' })
      .then(function (response) { if (!response.ok) throw new Error('status ' + response.status); return response.json(); })
      .then(function (sources) {
        sources.forEach(function (source) { show(views[source.id], source); if (source.status !== 'processing') delete views[source.id]; });
      })
      .catch(function () {})
      .then(function () { setTimeout(function () { poll(views, deadline); }, POLL_MS); });
  }
  // An import of many files: sent BATCH at a time (the server's limit per request), one progress bar over all.
  var BATCH = 10;
  function tracker(total) {
    var box = document.getElementById('upload-progress');
    if (!box) {
      box = document.createElement('p'); box.id = 'upload-progress'; box.className = 'upload-progress'; box.setAttribute('role', 'status');
      form.after(box);
    }
    var bar = document.createElement('progress'), text = document.createElement('span');
    bar.max = total; bar.value = 0; box.replaceChildren(bar, text);
    var counts = { done: 0, failed: 0, activities: 0 };
    function render() {
      bar.value = counts.done;
      text.textContent = counts.done < total
        ? counts.done + ' of ' + total + ' files read' + (counts.failed ? ' (' + counts.failed + ' failed)' : '') + '…'
        : 'All ' + total + ' files read: ' + counts.activities + (counts.activities === 1 ? ' activity' : ' activities') + (counts.failed ? ', ' + counts.failed + ' failed' : '') + '.';
    }
    render();
    return function settle(failed, activities) { counts.done += 1; if (failed) counts.failed += 1; counts.activities += activities; render(); };
  }
  function send(files) {
    if (!files || files.length === 0) return;
    var list = Array.prototype.slice.call(files), settle = tracker(list.length);
    var rows = list.map(function (file) {
      var view = row(file.name), show0 = view.set;
      view.set = function (status, text, error) {
        show0(status, text, error);
        if ((status === 'processed' || status === 'failed') && !view.counted) { view.counted = true; settle(status === 'failed', view.activities || 0); }
      };
      return view;
    });
    var token = form.querySelector('input[name=csrf]').value;
    function batch(start) {
      if (start >= list.length) return;
      var body = new FormData(), views = rows.slice(start, start + BATCH);
      body.append('csrf', token);
      list.slice(start, start + BATCH).forEach(function (file) { body.append('files', file, file.name); });
      fetch(form.action, { method: 'POST', body: body, headers: { accept: 'application/json' }, credentials: 'same-origin' })
        .then(function (response) {
          return response.json().then(function (answer) {
            if (!response.ok) throw new Error(answer.detail || 'The upload was refused (' + response.status + ').');
            return answer;
          });
        })
        .then(function (answer) {
          var waiting = {};
          answer.sources.forEach(function (source, index) { var view = views[index]; if (!view) return; show(view, source); if (source.status === 'processing') waiting[source.id] = view; });
          poll(waiting, Date.now() + DEADLINE_MS);
        })
        .catch(function (error) { views.forEach(function (view) { view.set('failed', String(error.message || error), true); }); })
        .then(function () { batch(start + BATCH); });
    }
    batch(0);
    input.value = '';
  }
  input.addEventListener('change', function () { send(input.files); });
  ['dragenter', 'dragover'].forEach(function (type) {
    zone.addEventListener(type, function (event) { event.preventDefault(); zone.classList.add('over'); });
  });
  ['dragleave', 'drop'].forEach(function (type) {
    zone.addEventListener(type, function () { zone.classList.remove('over'); });
  });
  zone.addEventListener('drop', function (event) { event.preventDefault(); send(event.dataTransfer.files); });
})();
`;

const digest = createHash('sha384').update(CLIENT_SCRIPT, 'utf8').digest();

/** Subresource Integrity of the script. */
export const SCRIPT_INTEGRITY = `sha384-${digest.toString('base64')}`;

/** Its path: content-hashed, so it can be cached for good. */
export const SCRIPT_PATH = `/training/assets/athlete-${digest.toString('hex').slice(0, 12)}.js`;
