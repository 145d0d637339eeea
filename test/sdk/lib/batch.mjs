// lib/batch.mjs - build and read the multipart/mixed bodies of an entity group transaction
// ($batch), as described in "Performing entity group transactions": one batch part holding one
// changeset, each operation an application/http part with a request line carrying an absolute
// URL, its headers and its body.
import { randomUUID } from 'node:crypto';

// ops: [{method, url (absolute), headers: {}, body (object | string | undefined)}]
// options: eol ('\r\n' or '\n'), batchId, changesetId
export function batchBody(ops, { eol = '\r\n', batchId = randomUUID(), changesetId = randomUUID() } = {}) {
	const batch = `batch_${batchId}`;
	const changeset = `changeset_${changesetId}`;
	const lines = [];
	lines.push(`--${batch}`, `Content-Type: multipart/mixed; boundary=${changeset}`, '');
	for (const op of ops) {
		lines.push(`--${changeset}`, 'Content-Type: application/http', 'Content-Transfer-Encoding: binary', '');
		lines.push(`${op.method} ${op.url} HTTP/1.1`);
		const headers = { Accept: 'application/json;odata=minimalmetadata', DataServiceVersion: '3.0;', ...(op.headers ?? {}) };
		let body = op.body;
		if (body !== undefined && typeof body !== 'string') {
			body = JSON.stringify(body);
			headers['Content-Type'] ??= 'application/json';
		}
		for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
		lines.push('');
		lines.push(body ?? '');
	}
	lines.push(`--${changeset}--`, `--${batch}--`, '');
	return { body: lines.join(eol), contentType: `multipart/mixed; boundary=${batch}` };
}

function boundaryOf(contentType) {
	const m = /boundary=("?)([^";]+)\1/i.exec(contentType ?? '');
	return m ? m[2] : undefined;
}

// Split a multipart body into its parts (tolerating LF-only line endings).
function splitParts(text, boundary) {
	const parts = [];
	const delim = `--${boundary}`;
	const pieces = text.split(delim);
	for (let i = 1; i < pieces.length; i++) {
		const p = pieces[i];
		if (p.startsWith('--')) break;
		parts.push(p.replace(/^\r?\n/, ''));
	}
	return parts;
}

function splitHead(text) {
	const m = /\r?\n\r?\n/.exec(text);
	if (!m) return { head: text, body: '' };
	return { head: text.slice(0, m.index), body: text.slice(m.index + m[0].length) };
}

function parseHeaders(head) {
	const headers = {};
	for (const line of head.split(/\r?\n/)) {
		const i = line.indexOf(':');
		if (i > 0) headers[line.slice(0, i).trim().toLowerCase()] = line.slice(i + 1).trim();
	}
	return headers;
}

// Read a $batch response: {ok, parts: [{status, headers, text, json}], error} where parts are the
// operation responses of the changeset (or the single response part when there is no changeset).
export function parseBatchResponse(contentType, text) {
	const outer = boundaryOf(contentType);
	if (!outer) return { ok: false, error: `no boundary in Content-Type ${JSON.stringify(contentType)}`, parts: [] };
	const result = { ok: true, parts: [] };
	for (const part of splitParts(text, outer)) {
		const { head, body } = splitHead(part);
		const h = parseHeaders(head);
		const inner = boundaryOf(h['content-type']);
		const httpParts = inner ? splitParts(body, inner) : [part];
		for (const hp of httpParts) {
			// the HTTP response starts after the part's MIME headers; be lenient where it is not
			// (as the SDKs are) but record that the part was malformed
			let msg = hp;
			if (!/^HTTP\//.test(hp)) {
				const { body: afterMime } = splitHead(hp);
				msg = afterMime;
			}
			if (!/^HTTP\/1\.[01] \d{3}/.test(msg)) {
				const m = /^HTTP\/1\.[01] \d{3}/m.exec(hp);
				result.ok = false;
				result.error = m
					? `text before the status line of a part: ${JSON.stringify(msg.slice(0, 60))}`
					: `a part without an HTTP status line: ${JSON.stringify(hp.slice(0, 80))}`;
				if (!m) continue;
				msg = hp.slice(m.index);
			}
			const { head: respHead, body: respBody } = splitHead(msg);
			const lines = respHead.split(/\r?\n/);
			const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(lines[0])[1]);
			const bodyText = respBody.replace(/\r?\n$/, '');
			let json;
			try {
				json = bodyText.trim() ? JSON.parse(bodyText.trim()) : undefined;
			} catch {
				json = undefined;
			}
			result.parts.push({ status, headers: parseHeaders(lines.slice(1).join('\n')), text: bodyText, json });
		}
	}
	return result;
}
