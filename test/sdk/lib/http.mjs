// lib/http.mjs - raw HTTP requests to the endpoint, signed with lib/signer.mjs, for what the SDK
// never sends. Paths are given exactly as they go on the wire (already percent-encoded); the
// signature is computed over that same raw path.
import http from 'node:http';
import https from 'node:https';
import { authorization } from './signer.mjs';

export const DEFAULT_VERSION = '2019-02-02';
export const MINIMAL = 'application/json;odata=minimalmetadata';
export const NOMETA = 'application/json;odata=nometadata';
export const FULL = 'application/json;odata=fullmetadata';

// Encode a key for use inside PartitionKey='…': a quote is doubled, then the text is
// percent-encoded. quotes: 'literal' keeps the quote characters as they are, 'pct' sends %27.
export function encodeKey(key, quotes = 'literal') {
	let s = encodeURIComponent(key.replace(/'/g, "''"));
	// encodeURIComponent leaves ' ( ) ! * alone; encode the parentheses so that a key can never
	// close the key predicate
	s = s.replace(/\(/g, '%28').replace(/\)/g, '%29');
	if (quotes === 'pct') s = s.replace(/'/g, '%27');
	return s;
}

export function entityPath(table, pk, rk, quotes = 'literal') {
	const q = quotes === 'pct' ? '%27' : "'";
	return `${table}(PartitionKey=${q}${encodeKey(pk, quotes)}${q},RowKey=${q}${encodeKey(rk, quotes)}${q})`;
}

export class RawClient {
	constructor({ endpoint, account, key }) {
		const url = new URL(endpoint);
		this.url = url;
		this.mod = url.protocol === 'https:' ? https : http;
		this.host = url.hostname;
		this.port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
		this.basePath = url.pathname.replace(/\/+$/, ''); // "/devstoreaccount1" for path-style
		this.account = account;
		this.key = key;
	}

	// The absolute URL of a resource path (for request lines inside a $batch).
	absolute(path) {
		return `${this.url.protocol}//${this.url.host}${this.basePath}/${path}`;
	}

	// opts: method, path (relative resource, raw), query (raw, without '?'), headers (null value
	// removes a default), body (string | Buffer | object → JSON), auth ('SharedKey' |
	// 'SharedKeyLite' | 'none'), key, account (override the signing credentials), version,
	// agent, timeoutMs. Resolves {status, headers, text, json, code, raw: true}; a transport
	// error rejects (err.code = ECONNRESET etc.) unless a full response arrived first.
	request(opts) {
		const method = (opts.method ?? 'GET').toUpperCase();
		const rawPath = opts.rawPath ?? `${this.basePath}/${opts.path ?? ''}`;
		const rawQuery = opts.query ?? '';
		let body = opts.body;
		let contentType;
		if (body !== undefined && !(typeof body === 'string') && !Buffer.isBuffer(body)) {
			body = JSON.stringify(body);
			contentType = 'application/json';
		}
		const bodyBuf = body === undefined ? undefined : Buffer.isBuffer(body) ? body : Buffer.from(body, 'utf8');
		const headers = {
			'x-ms-date': new Date().toUTCString(),
			'x-ms-version': opts.version ?? DEFAULT_VERSION,
			Accept: MINIMAL,
			DataServiceVersion: '3.0;NetFx',
			MaxDataServiceVersion: '3.0;NetFx',
		};
		if (contentType) headers['Content-Type'] = contentType;
		if (bodyBuf) headers['Content-Length'] = String(bodyBuf.length);
		for (const [k, v] of Object.entries(opts.headers ?? {})) {
			for (const existing of Object.keys(headers)) if (existing.toLowerCase() === k.toLowerCase()) delete headers[existing];
			if (v !== null && v !== undefined) headers[k] = v;
		}
		if (method === 'POST' || method === 'PUT' || method === 'MERGE' || method === 'PATCH') {
			if (!bodyBuf && !Object.keys(headers).some((k) => k.toLowerCase() === 'content-length')) headers['Content-Length'] = '0';
		}
		const auth = opts.auth ?? 'SharedKey';
		if (auth !== 'none' && !Object.keys(headers).some((k) => k.toLowerCase() === 'authorization')) {
			headers.Authorization = authorization(auth, opts.account ?? this.account, opts.key ?? this.key, method, headers, rawPath, rawQuery);
		}
		const path = rawQuery ? `${rawPath}?${rawQuery}` : rawPath;
		const timeoutMs = opts.timeoutMs ?? 30_000;
		return new Promise((resolve, reject) => {
			let response;
			let settled = false;
			const done = (fn, v) => {
				if (!settled) {
					settled = true;
					clearTimeout(timer);
					fn(v);
				}
			};
			const req = this.mod.request({ host: this.host, port: this.port, method, path, headers, agent: opts.agent }, (res) => {
				response = res;
				const chunks = [];
				res.on('data', (c) => chunks.push(c));
				res.on('end', () => {
					const buf = Buffer.concat(chunks);
					const text = buf.toString('utf8');
					let json;
					try {
						json = text ? JSON.parse(text) : undefined;
					} catch {
						json = undefined;
					}
					const code = res.headers['x-ms-error-code'] ?? json?.['odata.error']?.code;
					const message = json?.['odata.error']?.message?.value ?? '';
					done(resolve, { raw: true, status: res.statusCode, headers: res.headers, text, json, code, message });
				});
				res.on('error', (e) => done(reject, e));
			});
			const timer = setTimeout(() => {
				req.destroy(new Error(`no complete response within ${timeoutMs / 1000} s`));
			}, timeoutMs);
			req.on('error', (e) => {
				// a server that answers before reading the whole body may reset the upload: keep
				// the answer if it is arriving
				if (response && !response.complete) {
					response.on('end', () => {});
					setTimeout(() => done(reject, e), 2000);
				} else if (!response) done(reject, e);
			});
			if (bodyBuf) req.end(bodyBuf);
			else req.end();
		});
	}
}
