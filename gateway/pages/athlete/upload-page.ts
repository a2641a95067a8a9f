/**
 * The upload page (/training/upload): a drop zone that is also a plain file input in a multipart form (with the
 * session's CSRF token), so it works without script (up to the server's limit of files per request); the
 * script (client-script.ts) sends any number of dropped or chosen files in batches of that limit and follows
 * each source's status live. The drop zone says which of the two applies (`.js-only` / `.nojs`). Below, the recent uploads as `/profile/sources/`
 * presents them: processing, processed (with a link to the activity) or failed (with the decoder's error).
 * Pure renderer for routes/athlete-pages.ts.
 */
import { html, type Html } from '../html.js';
import type { PageOptions } from '../layout.js';
import { athletePage, localParts } from './frame.js';

/** The fields of the API's Source this page reads. */
export interface SourceView {
  id: string;
  filename: string | null;
  status: 'processing' | 'processed' | 'failed';
  activity_ids: string[];
  created_at: string;
  error: { code: string; message: string | null } | null;
}

const LABELS = { processing: 'Processing', processed: 'Processed', failed: 'Failed' } as const;

function sourceRow(source: SourceView): Html {
  const when = localParts(source.created_at.replace(/Z$/, '').slice(0, 19));
  const note = source.status === 'failed'
    ? html`<span class="error-text">${source.error?.message ?? source.error?.code ?? 'The file could not be read.'}</span>`
    : source.status === 'processed'
      ? html`<span>${source.activity_ids.length === 1 ? '1 activity' : `${source.activity_ids.length} activities`} · uploaded ${when.day}, ${when.time} UTC</span>`
      : html`<span>Reading the file… · uploaded ${when.day}, ${when.time} UTC</span>`;
  const open = source.status === 'processed' && source.activity_ids[0] ? html`<a href="/training/activities/${encodeURIComponent(source.activity_ids[0])}">Open</a>` : null;
  return html`<li data-source="${source.id}"><div class="file"><strong>${source.filename ?? 'Unnamed file'}</strong>${note}</div><div class="state">${open}<span class="badge ${source.status}">${LABELS[source.status]}</span></div></li>`;
}

export function uploadPage(view: { csrfToken: string; recent: SourceView[]; notice?: string | null; error?: string | null; maxFiles: number; maxMiB: number }): PageOptions {
  const body = html`<div class="page-head"><div><h1>Upload</h1><p class="muted">FIT files from your device or computer, or CSV files with a sport and an offset-aware timestamp column.</p></div></div>
${view.notice ? html`<p class="notice success" role="status">${view.notice}</p>` : null}
${view.error ? html`<p class="notice error" role="alert">${view.error}</p>` : null}
<section class="panel" aria-label="Upload files">
<form id="upload-form" method="post" action="/training/upload" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="${view.csrfToken}">
<label class="drop" for="files"><strong>Drop FIT or CSV files here</strong><span class="muted js-only">or choose as many files as you like, ${view.maxMiB} MiB each</span><span class="muted nojs">or choose up to ${view.maxFiles} files at a time, ${view.maxMiB} MiB each</span>
<input id="files" type="file" name="files" multiple accept=".fit,.FIT,.csv,.CSV"></label>
<button type="submit" class="nojs">Upload</button>
</form>
</section>
<section class="panel" aria-labelledby="recent"><h2 id="recent">Recent uploads</h2>
${view.recent.length === 0 ? html`<p class="empty" id="no-uploads">Nothing uploaded yet.</p>` : null}
<ul id="live" class="uploads" aria-live="polite">${view.recent.map(sourceRow)}</ul>
</section>`;
  return athletePage({ title: 'Upload', current: 'upload', body, style: 'html:not(.js) .js-only{display:none}.upload-progress{display:flex;align-items:center;gap:.75rem;margin:.9rem 0 0;font-variant-numeric:tabular-nums}.upload-progress progress{flex:0 1 14rem}' });
}
