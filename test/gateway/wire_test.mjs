// test/gateway/wire_test.mjs - the wire details that official clients look at (issue 27), byte
// for byte where they look: a changeset's inner responses and their boundaries (the Go client
// reads each inner response to its blank line), an empty changeset, a $batch whose own Accept is
// Atom (azure-storage 2.x), Get Table ACL's identifiers, the service's message texts, odata=verbose.
// Started by test/gateway/run.sh:  node wire_test.mjs --port N
import crypto from 'node:crypto';
import { args, errCode, ok, req, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const T = 'wire' + crypto.randomBytes(4).toString('hex');
const r = (o) => req({ port: PORT, ...o });

// A changeset of sub-requests (each {method, path, body, headers}) as the SDKs write it.
function changeset(ops, { accept = 'application/json;odata=minimalmetadata' } = {}) {
	const b = 'batch_' + crypto.randomUUID(), c = 'changeset_' + crypto.randomUUID();
	let body = `--${b}\r\nContent-Type: multipart/mixed; boundary=${c}\r\n\r\n`;
	for (const o of ops) {
		body += `--${c}\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n`;
		body += `${o.method} http://127.0.0.1:${PORT}/devstoreaccount1${o.path} HTTP/1.1\r\n`;
		body += `Accept: ${o.accept ?? 'application/json;odata=minimalmetadata'}\r\nDataServiceVersion: 3.0;\r\n`;
		for (const [k, v] of Object.entries(o.headers ?? {})) body += `${k}: ${v}\r\n`;
		if (o.body !== undefined) {
			const s = JSON.stringify(o.body);
			body += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(s)}\r\n\r\n${s}\r\n`;
		} else body += '\r\n';
	}
	body += `--${c}--\r\n--${b}--\r\n`;
	return r({ method: 'POST', path: '/$batch', body, headers: { 'Content-Type': `multipart/mixed; boundary=${b}`, Accept: accept } });
}

// The changeset response's parts, each the text between two of its boundaries.
function parts(res) {
	const cs = /boundary=(changesetresponse_[0-9a-f-]+)/.exec(res.text)?.[1];
	if (!cs) return { cs: null, parts: [] };
	const chunks = res.text.split(`--${cs}`);
	return { cs, parts: chunks.slice(1, -1), closing: chunks[chunks.length - 1] };
}

await r({ method: 'POST', path: '/Tables', body: { TableName: T } });

// ---------------------------------------------------------------- changeset responses
{
	await r({ method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'old', V: 1 } });
	const res = await changeset([
		{ method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'a', V: 1 } },
		{ method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'b', V: 2 }, headers: { Prefer: 'return-no-content' } },
		{ method: 'PUT', path: `/${T}(PartitionKey='p',RowKey='old')`, body: { PartitionKey: 'p', RowKey: 'old', V: 3 }, headers: { 'If-Match': '*' } },
	]);
	const { parts: ps } = parts(res);
	ok(res.status === 202 && ps.length === 3, 'a changeset of three: 202 with three parts', `${res.status} ${ps.length}`);
	// each part: "\r\n" + MIME headers + "\r\n" + inner status line + headers + "\r\n" + body + "\r\n" (the boundary's CRLF)
	const [p201, p204insert, p204] = ps;
	ok(/^\r\nContent-Type: application\/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP\/1\.1 201 Created\r\n/.test(p201 ?? ''),
		'the insert part: MIME headers, blank line, HTTP/1.1 201', JSON.stringify((p201 ?? '').slice(0, 120)));
	ok(/\r\n\r\n\{[^\r\n]*\}\r\n$/.test(p201 ?? ''), 'the 201 part: headers, blank line, the entity, then the CRLF of the boundary', JSON.stringify((p201 ?? '').slice(-60)));
	ok(/HTTP\/1\.1 204 No Content\r\n[\s\S]*Preference-Applied: return-no-content\r\n[\s\S]*\r\n\r\n\r\n$/.test(p204insert ?? ''),
		'a 204 insert part ends with its blank line, an empty body and the boundary\'s CRLF (\\r\\n\\r\\n\\r\\n--)', JSON.stringify((p204insert ?? '').slice(-80)));
	ok(/HTTP\/1\.1 204 No Content\r\n[\s\S]*ETag: W\/"[^"\r\n]*"\r\n\r\n\r\n$/.test(p204 ?? ''),
		'the update part: ...ETag: W/"…"\\r\\n\\r\\n\\r\\n--changesetresponse_', JSON.stringify((p204 ?? '').slice(-80)));
	ok(res.text.endsWith('--\r\n') && /--changesetresponse_[0-9a-f-]+--\r\n--batchresponse_[0-9a-f-]+--\r\n$/.test(res.text),
		'closing delimiters of both levels', JSON.stringify(res.text.slice(-120)));

	const fail = await changeset([
		{ method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'c' } },
		{ method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'old' } },
	]);
	const { parts: fp } = parts(fail);
	ok(fail.status === 202 && fp.length === 1 && /HTTP\/1\.1 409 Conflict\r\n/.test(fp[0]) && /\r\n\r\n\{"odata\.error"[^\r\n]*\}\r\n$/.test(fp[0]),
		'a failing changeset: one 409 part, headers, blank line, the error, the boundary\'s CRLF', JSON.stringify((fp[0] ?? '').slice(-160)));
	const msg = /"value":"([^"]*)"/.exec(fp[0] ?? '')?.[1] ?? '';
	ok(msg.startsWith('1:The specified entity already exists.\\nRequestId:'), "the part's message: the index, the service's text, RequestId", msg.slice(0, 100));

	const atomOuter = await changeset([{ method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'atom' } }],
		{ accept: 'application/atom+xml,application/xml' });
	ok(atomOuter.status === 202 && /HTTP\/1\.1 201 Created/.test(atomOuter.text),
		'a $batch whose own Accept is Atom (azure-storage 2.x): 202, its JSON parts decide', `${atomOuter.status} ${atomOuter.text.slice(0, 200)}`);
	const atomPart = await changeset([{ method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'atom2' }, accept: 'application/atom+xml' }]);
	ok(atomPart.status === 202 && /HTTP\/1\.1 415 /.test(atomPart.text), 'a part that accepts only Atom: its 415 part', `${atomPart.status}`);

	const empty = await changeset([]);
	const { parts: ep, cs } = parts(empty);
	ok(empty.status === 202 && cs && ep.length === 0 && new RegExp(`--${cs}--\\r\\n--batchresponse_[0-9a-f-]+--\\r\\n$`).test(empty.text),
		'an empty changeset: 202 with an empty changesetresponse', `${empty.status} ${JSON.stringify(empty.text)}`);
}

// ---------------------------------------------------------------- the service's message texts
{
	const get = await r({ path: `/${T}(PartitionKey='p',RowKey='old')` });
	const stale = await r({ method: 'PUT', path: `/${T}(PartitionKey='p',RowKey='old')`, body: { PartitionKey: 'p', RowKey: 'old', V: 9 },
		headers: { 'If-Match': 'W/"datetime\'2000-01-01T00%3A00%3A00Z\'"' } });
	const v = stale.json?.['odata.error']?.message?.value ?? '';
	ok(get.status === 200 && stale.status === 412 && /^The update condition specified in the request was not satisfied\.\nRequestId:[0-9a-f-]{36}\nTime:\d{4}-\d\d-\d\dT[\d:.]+Z(\n|$)/.test(v),
		'412: the service\'s text, then the RequestId and Time lines', JSON.stringify(v));
	const missing = await r({ path: `/${T}(PartitionKey='p',RowKey='none')` });
	ok(missing.status === 404 && (missing.json?.['odata.error']?.message?.value ?? '').startsWith('The specified resource does not exist.\nRequestId:'),
		'404: The specified resource does not exist.', missing.text.slice(0, 200));
	const noTable = await r({ path: '/nosuchtable0()' });
	ok(noTable.status === 404 && errCode(noTable) === 'TableNotFound' && (noTable.json?.['odata.error']?.message?.value ?? '').startsWith('The table specified does not exist.\nRequestId:'),
		'404 TableNotFound: The table specified does not exist.', noTable.text.slice(0, 200));
	const exists = await r({ method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'old' } });
	ok(exists.status === 409 && (exists.json?.['odata.error']?.message?.value ?? '').startsWith('The specified entity already exists.\nRequestId:'),
		'409: The specified entity already exists.', exists.text.slice(0, 200));
}

// ---------------------------------------------------------------- odata=verbose
{
	const acc = await r({ path: `/${T}()`, headers: { Accept: 'application/json;odata=verbose' } });
	ok(acc.status === 415 && errCode(acc) === 'JsonVerboseFormatNotSupported', 'Accept odata=verbose: 415 JsonVerboseFormatNotSupported', `${acc.status} ${errCode(acc)}`);
	const fmt = await r({ path: `/${T}()`, query: `$format=${encodeURIComponent('application/json;odata=verbose')}` });
	ok(fmt.status === 415, '$format odata=verbose: 415', `${fmt.status}`);
}

// ---------------------------------------------------------------- Get Table ACL
{
	const doc = '<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers>' +
		'<SignedIdentifier><Id>zeta</Id></SignedIdentifier>' +
		'<SignedIdentifier><Id>alpha</Id><AccessPolicy><Start>2026-01-01T00:00:00Z</Start><Expiry>2027-01-01T00:00:00Z</Expiry><Permission>r</Permission></AccessPolicy></SignedIdentifier>' +
		'<SignedIdentifier><Id>mid</Id><AccessPolicy></AccessPolicy></SignedIdentifier>' +
		'</SignedIdentifiers>';
	const set = await r({ method: 'PUT', path: `/${T}`, query: 'comp=acl', body: doc, headers: { 'Content-Type': 'application/xml' } });
	const got = await r({ path: `/${T}`, query: 'comp=acl' });
	ok(set.status === 204 && got.status === 200, 'Set and Get Table ACL', `${set.status} ${got.status}`);
	const ids = [...got.text.matchAll(/<Id>([^<]*)<\/Id>/g)].map((m) => m[1]);
	ok(ids.join(',') === 'zeta,alpha,mid', 'identifiers come back in the order they were set', ids.join(','));
	ok(/<SignedIdentifier><Id>zeta<\/Id><\/SignedIdentifier>/.test(got.text) && /<SignedIdentifier><Id>mid<\/Id><\/SignedIdentifier>/.test(got.text),
		'an identifier without a policy, or with an empty one, comes back without <AccessPolicy>', got.text);
	ok(/<Id>alpha<\/Id><AccessPolicy><Start>2026-01-01T00:00:00\.0000000Z<\/Start><Expiry>2027-01-01T00:00:00\.0000000Z<\/Expiry><Permission>r<\/Permission><\/AccessPolicy>/.test(got.text),
		'a policy comes back whole', got.text);
}

await r({ method: 'DELETE', path: `/Tables('${T}')` });
process.exit(summary() ? 0 : 1);
