// lib/signer.mjs - Shared Key and Shared Key Lite signatures for the Table service, written from
// the "Authorize with Shared Key" documentation:
//
//   Shared Key (Table service):  VERB \n Content-MD5 \n Content-Type \n Date \n CanonicalizedResource
//   Shared Key Lite (Table):     Date \n CanonicalizedResource
//
// Date is the x-ms-date header when the request has one, else the Date header. The canonicalized
// resource is "/" + account + the request's path exactly as sent (still percent-encoded), plus
// "?comp=<value>" when the query has a comp parameter and nothing else of the query. With
// path-style URLs (http://127.0.0.1:10002/devstoreaccount1/Tables) the path already starts with
// the account, so it appears twice: /devstoreaccount1/devstoreaccount1/Tables.
// The signature is base64(HMAC-SHA256(base64decode(key), UTF-8 string-to-sign)).
import { createHmac } from 'node:crypto';

export function canonicalizedResource(account, rawPath, rawQuery = '') {
	let res = `/${account}${rawPath}`;
	const comp = compParam(rawQuery);
	if (comp !== undefined) res += `?comp=${comp}`;
	return res;
}

function compParam(rawQuery) {
	for (const pair of rawQuery.replace(/^\?/, '').split('&')) {
		const i = pair.indexOf('=');
		const name = i < 0 ? pair : pair.slice(0, i);
		if (name === 'comp') return decodeURIComponent(i < 0 ? '' : pair.slice(i + 1));
	}
	return undefined;
}

function header(headers, name) {
	for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === name) return String(v);
	return '';
}

export function stringToSign(scheme, method, headers, account, rawPath, rawQuery) {
	const date = header(headers, 'x-ms-date') || header(headers, 'date');
	const resource = canonicalizedResource(account, rawPath, rawQuery);
	if (scheme === 'SharedKeyLite') return `${date}\n${resource}`;
	return [method.toUpperCase(), header(headers, 'content-md5'), header(headers, 'content-type'), date, resource].join('\n');
}

export function sign(scheme, key, text) {
	return createHmac('sha256', Buffer.from(key, 'base64')).update(text, 'utf8').digest('base64');
}

// The Authorization header value for a request.
export function authorization(scheme, account, key, method, headers, rawPath, rawQuery) {
	const text = stringToSign(scheme, method, headers, account, rawPath, rawQuery);
	return `${scheme} ${account}:${sign(scheme, key, text)}`;
}
