// test/gateway/compat_test.mjs - requests that real clients and tools send, answered as the service
// answers them (issue 32; contract §6, §12), over raw HTTP:
//   - an insert addressed to t() (the legacy .NET clients), at top level, in a changeset, with a SAS;
//   - a $batch holding one query alone (no changeset): 202 with the inner 200 or 404;
//   - x-ms-version: published versions and later dates accepted, anything else 400 InvalidHeaderValue;
//   - Get Table Service Stats: the -secondary endpoint only (400 on the primary, as the service);
//   - CORS: allowed origins with wildcards, Vary: Origin when no rule matches, a preflight without
//     Access-Control-Request-Method;
//   - If-Match: w/"…" (the weak prefix in lower case);
//   - a trailing '/' after the resource (Tables/, t()/, $batch/); a SAS field given twice.
// Started by test/gateway/run.sh:  node compat_test.mjs --port N
import crypto from 'node:crypto';
import { DEV, args, errCode, ok, req, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const T = 'compat' + crypto.randomBytes(4).toString('hex');
const r = (o) => req({ port: PORT, ...o });

// A table's (service) SAS, written from "Create a service SAS" (version 2019-02-02):
// sp\nst\nse\n/table/<account>/<table in lower case>\nsi\nsip\nspr\nsv\nspk\nsrk\nepk\nerk
function tableSas(table, sp) {
	const sv = '2019-02-02', se = '2099-01-01T00:00:00Z';
	const sts = `${sp}\n\n${se}\n/table/${DEV.name}/${table.toLowerCase()}\n\n\n\n${sv}\n\n\n\n`;
	const sig = crypto.createHmac('sha256', Buffer.from(DEV.key, 'base64')).update(sts, 'utf8').digest('base64');
	return new URLSearchParams({ sv, tn: table, sp, se, sig }).toString();
}

// A $batch body: parts is the text between the batch's boundaries (each part whole).
function batchBody(b, parts) {
	return parts.map((p) => `--${b}\r\n${p}`).join('') + `--${b}--\r\n`;
}
function subRequest(method, path, { body, headers = {} } = {}) {
	let s = `Content-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n`;
	s += `${method} http://127.0.0.1:${PORT}/${DEV.name}${path} HTTP/1.1\r\nAccept: application/json;odata=minimalmetadata\r\nDataServiceVersion: 3.0;\r\n`;
	for (const [k, v] of Object.entries(headers)) s += `${k}: ${v}\r\n`;
	if (body !== undefined) {
		const j = JSON.stringify(body);
		s += `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(j)}\r\n\r\n${j}\r\n`;
	} else s += '\r\n';
	return s;
}
function changesetPart(ops) {
	const c = 'changeset_' + crypto.randomUUID();
	return `Content-Type: multipart/mixed; boundary=${c}\r\n\r\n` + ops.map((o) => `--${c}\r\n${o}`).join('') + `--${c}--\r\n`;
}
function batch(parts, extra = {}) {
	const b = 'batch_' + crypto.randomUUID();
	return r({ method: 'POST', path: '/$batch', body: batchBody(b, parts), headers: { 'Content-Type': `multipart/mixed; boundary=${b}` }, ...extra });
}

await r({ method: 'POST', path: '/Tables', body: { TableName: T } });

// ---------------------------------------------------------------- 2. an insert addressed to t()
{
	const ins = await r({ method: 'POST', path: `/${T}()`, body: { PartitionKey: 'p', RowKey: 'parens', V: 1 } });
	ok(ins.status === 201 && ins.json?.RowKey === 'parens' && ins.headers.etag && /\(PartitionKey='p',RowKey='parens'\)$/.test(ins.headers.location ?? ''),
		'POST t(): 201 with the entity, ETag and Location, as POST t', `${ins.status} ${errCode(ins)} ${ins.text.slice(0, 200)}`);
	const got = await r({ path: `/${T}(PartitionKey='p',RowKey='parens')` });
	ok(got.status === 200 && got.json?.V === 1, 'the entity inserted through t() is there', `${got.status}`);
	const again = await r({ method: 'POST', path: `/${T}()`, body: { PartitionKey: 'p', RowKey: 'parens' } });
	ok(again.status === 409 && errCode(again) === 'EntityAlreadyExists', 'POST t() of an existing entity: 409 EntityAlreadyExists', `${again.status} ${errCode(again)}`);
	const quiet = await r({ method: 'POST', path: `/${T}()`, body: { PartitionKey: 'p', RowKey: 'parens2' }, headers: { Prefer: 'return-no-content' } });
	ok(quiet.status === 204 && quiet.headers['preference-applied'] === 'return-no-content', 'POST t() with Prefer: return-no-content: 204', `${quiet.status}`);
	const put = await r({ method: 'PUT', path: `/${T}()`, body: { PartitionKey: 'p', RowKey: 'x' } });
	ok(put.status === 405 && put.headers.allow === 'GET, POST', 'PUT t(): 405 with Allow: GET, POST', `${put.status} ${put.headers.allow}`);

	const cs = await batch([changesetPart([
		subRequest('POST', `/${T}()`, { body: { PartitionKey: 'b', RowKey: '1' } }),
		subRequest('POST', `/${T}()`, { body: { PartitionKey: 'b', RowKey: '2' }, headers: { Prefer: 'return-no-content' } }),
	])]);
	ok(cs.status === 202 && (cs.text.match(/HTTP\/1\.1 201 Created/g) ?? []).length === 1 && (cs.text.match(/HTTP\/1\.1 204 No Content/g) ?? []).length === 1 &&
		/Location: [^\r\n]*\(PartitionKey='b',RowKey='2'\)\r\n/.test(cs.text),
		'a changeset inserting through t(): 202, a 201 part and a 204 part with Location', cs.text.slice(0, 600));
	const both = await r({ path: `/${T}()`, query: `$filter=${encodeURIComponent("PartitionKey eq 'b'")}` });
	ok(both.status === 200 && both.json?.value?.length === 2, 'both entities of the changeset are there', `${both.status} ${both.text.slice(0, 200)}`);

	const sasAdd = await r({ method: 'POST', path: `/${T}()`, query: tableSas(T, 'a'), noAuth: true, body: { PartitionKey: 's', RowKey: '1' } });
	ok(sasAdd.status === 201, "POST t() with a table SAS of sp=a: 201", `${sasAdd.status} ${errCode(sasAdd)}`);
	const sasRead = await r({ method: 'POST', path: `/${T}()`, query: tableSas(T, 'r'), noAuth: true, body: { PartitionKey: 's', RowKey: '2' } });
	ok(sasRead.status === 403 && errCode(sasRead) === 'AuthorizationPermissionMismatch', 'POST t() with a table SAS of sp=r: 403 AuthorizationPermissionMismatch',
		`${sasRead.status} ${errCode(sasRead)}`);
	const sec = await r({ method: 'POST', path: `/${T}()`, pathAccount: `${DEV.name}-secondary`, body: { PartitionKey: 's', RowKey: '3' } });
	ok(sec.status === 403 && errCode(sec) === 'InsufficientAccountPermissions', 'POST t() on -secondary: 403 (a write)', `${sec.status} ${errCode(sec)}`);
}

// ---------------------------------------------------------------- 4. a batch of one query alone
{
	await r({ method: 'POST', path: `/${T}`, body: { PartitionKey: 'q', RowKey: '1', V: 7 } });
	await r({ method: 'POST', path: `/${T}`, body: { PartitionKey: 'q', RowKey: '2', V: 8 } });
	const one = await batch([subRequest('GET', `/${T}(PartitionKey='q',RowKey='1')`)]);
	const ct = one.headers['content-type'] ?? '';
	const bs = /boundary=(batchresponse_[0-9a-f-]+)/.exec(ct)?.[1];
	ok(one.status === 202 && bs && !/changesetresponse/.test(one.text), 'a batch of one GET alone: 202, a batchresponse without a changeset', `${one.status} ${ct} ${one.text.slice(0, 300)}`);
	const part = bs ? one.text.split(`--${bs}`)[1] ?? '' : '';
	const pbody = /\r\n\r\n(\{[^\r\n]*\})\r\n$/.exec(part)?.[1];
	ok(/^\r\nContent-Type: application\/http\r\nContent-Transfer-Encoding: binary\r\n\r\nHTTP\/1\.1 200 OK\r\n/.test(part) &&
		/\r\nETag: W\/"[^"\r\n]+"\r\n/.test(part) && /\r\nContent-Type: application\/json;odata=minimalmetadata/.test(part) &&
		pbody && JSON.parse(pbody).V === 7 && one.text.endsWith(`--${bs}--\r\n`),
		'its part: 200 OK with ETag, Content-Type and the entity; the batch closed', JSON.stringify(one.text.slice(0, 700)));
	const missing = await batch([subRequest('GET', `/${T}(PartitionKey='q',RowKey='none')`)]);
	ok(missing.status === 202 && /HTTP\/1\.1 404 Not Found\r\n/.test(missing.text) && /"code":"ResourceNotFound"/.test(missing.text),
		'a batch of one GET of a missing entity: 202 with the 404 ResourceNotFound part', `${missing.status} ${missing.text.slice(0, 400)}`);
	const noTable = await batch([subRequest('GET', `/nosuchtable0(PartitionKey='q',RowKey='1')`)]);
	ok(noTable.status === 202 && /HTTP\/1\.1 404 Not Found\r\n/.test(noTable.text) && /TableNotFound/.test(noTable.text),
		'a batch of one GET on a missing table: 202 with the 404 TableNotFound part', `${noTable.status} ${noTable.text.slice(0, 400)}`);
	const nometa = await batch([subRequest('GET', `/${T}(PartitionKey='q',RowKey='2')`, { headers: { Accept: 'application/json;odata=nometadata' } })
		.replace('Accept: application/json;odata=minimalmetadata\r\n', '')]);
	ok(nometa.status === 202 && /odata=nometadata/.test(nometa.text) && !/odata\.metadata/.test(nometa.text) && /"V":8/.test(nometa.text),
		"the part's Accept decides its metadata level", nometa.text.slice(0, 500));
	const many = await batch([subRequest('GET', `/${T}()?$filter=${encodeURIComponent("PartitionKey eq 'q'")}`)]);
	ok(many.status === 202 && /HTTP\/1\.1 200 OK\r\n/.test(many.text) && /"value":\[/.test(many.text) && (many.text.match(/"RowKey":"[12]"/g) ?? []).length === 2,
		'a batch of one query of the table alone: 202 with the page', `${many.status} ${many.text.slice(0, 400)}`);

	const two = await batch([subRequest('GET', `/${T}(PartitionKey='q',RowKey='1')`), subRequest('GET', `/${T}(PartitionKey='q',RowKey='2')`)]);
	ok(two.status === 400 && errCode(two) === 'InvalidInput', 'two queries in one batch: 400 InvalidInput (a query is sent singly)', `${two.status} ${errCode(two)}`);
	const mixed = await batch([changesetPart([subRequest('POST', `/${T}`, { body: { PartitionKey: 'q', RowKey: '9' } })]),
		subRequest('GET', `/${T}(PartitionKey='q',RowKey='1')`)]);
	const nine = await r({ path: `/${T}(PartitionKey='q',RowKey='9')` });
	ok(mixed.status === 400 && nine.status === 404, 'a changeset and a query in one batch: 400, nothing written', `${mixed.status} ${nine.status}`);
	const inside = await batch([changesetPart([subRequest('GET', `/${T}(PartitionKey='q',RowKey='1')`)])]);
	ok(inside.status === 202 && /HTTP\/1\.1 400 Bad Request\r\n/.test(inside.text) && /"value":"0:/.test(inside.text),
		'a GET inside a changeset: 202 with the 400 part of operation 0', `${inside.status} ${inside.text.slice(0, 400)}`);
	const write = await batch([subRequest('POST', `/${T}`, { body: { PartitionKey: 'q', RowKey: '8' } })]);
	const eight = await r({ path: `/${T}(PartitionKey='q',RowKey='8')` });
	ok(write.status === 400 && errCode(write) === 'InvalidInput' && eight.status === 404, 'an insert outside a changeset: 400 InvalidInput, nothing written',
		`${write.status} ${errCode(write)} ${eight.status}`);
	const sasRead = await batch([subRequest('GET', `/${T}(PartitionKey='q',RowKey='1')`)], { query: tableSas(T, 'r'), noAuth: true });
	ok(sasRead.status === 202 && /HTTP\/1\.1 200 OK/.test(sasRead.text), 'a query alone with a table SAS of sp=r: 202 with the 200 part', `${sasRead.status} ${sasRead.text.slice(0, 300)}`);
	const sasAdd = await batch([subRequest('GET', `/${T}(PartitionKey='q',RowKey='1')`)], { query: tableSas(T, 'a'), noAuth: true });
	ok(sasAdd.status === 202 && /HTTP\/1\.1 403 Forbidden/.test(sasAdd.text) && !/"V":7/.test(sasAdd.text),
		'a query alone with a table SAS of sp=a only: 202 with a 403 part, no entity', `${sasAdd.status} ${sasAdd.text.slice(0, 300)}`);
}

// ---------------------------------------------------------------- 6. x-ms-version
{
	for (const v of ['2009-04-14', '2019-02-02', '2021-12-02', '2026-06-06', '2099-12-31']) {
		const res = await r({ path: `/${T}()`, query: '$top=1', headers: { 'x-ms-version': v } });
		ok(res.status === 200 && res.headers['x-ms-version'] === v, `x-ms-version ${v}: accepted and echoed`, `${res.status} ${res.headers['x-ms-version']}`);
	}
	for (const v of ['invalid', '2020-01-01', '2019-02-30', '2019-2-02', '2019-02-02x', '', '2008-10-27', '1999-01-01']) {
		const name = 'v' + crypto.randomBytes(4).toString('hex');
		const res = await r({ method: 'POST', path: '/Tables', body: { TableName: name }, headers: { 'x-ms-version': v } });
		const made = await r({ path: `/Tables('${name}')` });
		ok(res.status === 400 && errCode(res) === 'InvalidHeaderValue' && /^application\/xml/.test(res.headers['content-type'] ?? '') &&
			/<Code>InvalidHeaderValue<\/Code><Message>The value for one of the HTTP headers is not in the correct format\.\nRequestId:[^<]*<\/Message><HeaderName>x-ms-version<\/HeaderName>/.test(res.text) &&
			res.headers['x-ms-version'] !== v && made.status === 404,
			`x-ms-version ${JSON.stringify(v)}: 400 InvalidHeaderValue naming x-ms-version, nothing created`, `${res.status} ${errCode(res)} ${res.headers['x-ms-version']} ${made.status} ${res.text.slice(0, 300)}`);
	}
	const shown = await r({ path: `/${T}()`, headers: { 'x-ms-version': 'invalid' } });
	ok(/<HeaderValue>invalid<\/HeaderValue>/.test(shown.text), 'a short bad version is shown as HeaderValue', shown.text.slice(0, 300));
	const long = await r({ path: `/${T}()`, headers: { 'x-ms-version': 'x'.repeat(2000) } });
	ok(long.status === 400 && !/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx/.test(long.text + JSON.stringify(long.headers)),
		'a long bad version is refused and never echoed', `${long.status} ${long.text.slice(0, 300)}`);
	const none = await r({ path: `/${T}()`, headers: { 'x-ms-version': null } });
	ok(none.status === 200, 'no x-ms-version: accepted', `${none.status}`);
}

// ---------------------------------------------------------------- 7. Get Table Service Stats
{
	const primary = await r({ path: '/', query: 'restype=service&comp=stats' });
	ok(primary.status === 400 && errCode(primary) === 'InvalidQueryParameterValue' &&
		/<QueryParameterName>comp<\/QueryParameterName><QueryParameterValue>stats<\/QueryParameterValue>/.test(primary.text),
		'stats on the primary endpoint: 400 InvalidQueryParameterValue naming comp=stats', `${primary.status} ${errCode(primary)} ${primary.text.slice(0, 300)}`);
	const secondary = await r({ path: '/', pathAccount: `${DEV.name}-secondary`, query: 'restype=service&comp=stats' });
	ok(secondary.status === 200 && /<StorageServiceStats><GeoReplication><Status>live<\/Status>/.test(secondary.text),
		'stats on the -secondary endpoint: 200 with the replication status', `${secondary.status} ${secondary.text.slice(0, 200)}`);
}

// ---------------------------------------------------------------- 8. CORS
{
	const props = (origins) => '<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors><CorsRule>' +
		`<AllowedOrigins>${origins}</AllowedOrigins><AllowedMethods>GET,PUT</AllowedMethods><AllowedHeaders>x-ms-meta-*</AllowedHeaders>` +
		'<ExposedHeaders>x-ms-*</ExposedHeaders><MaxAgeInSeconds>60</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>';
	const setProps = (doc) => r({ method: 'PUT', path: '/', query: 'restype=service&comp=properties', body: doc, headers: { 'Content-Type': 'application/xml' } });
	const set = await setProps(props('https://www.fabrikam.com/*,http://*.contoso.com'));
	ok(set.status === 202, 'Set Table Service Properties with origins https://www.fabrikam.com/* and http://*.contoso.com: 202', `${set.status} ${set.text.slice(0, 300)}`);
	const got = await r({ path: '/', query: 'restype=service&comp=properties' });
	ok(/<AllowedOrigins>https:\/\/www\.fabrikam\.com\/\*,http:\/\/\*\.contoso\.com<\/AllowedOrigins>/.test(got.text), 'the origins come back as set', got.text.slice(0, 400));

	const get = (origin) => r({ path: `/${T}()`, query: '$top=1', headers: { Origin: origin } });
	for (const o of ['https://www.fabrikam.com', 'http://app.contoso.com', 'http://a.b.contoso.com', 'HTTP://APP.CONTOSO.COM']) {
		const res = await get(o);
		ok(res.status === 200 && res.headers['access-control-allow-origin'] === o && /Origin/.test(res.headers.vary ?? ''),
			`Origin ${o} is allowed by the wildcard rule (Allow-Origin echoed, Vary: Origin)`, `${res.status} ${res.headers['access-control-allow-origin']} ${res.headers.vary}`);
	}
	for (const o of ['http://www.fabrikam.com', 'https://app.contoso.com', 'http://contoso.com', 'http://evilcontoso.com', 'http://app.contoso.com.evil.example', 'https://www.fabrikam.com.evil.example']) {
		const res = await get(o);
		ok(res.status === 200 && res.headers['access-control-allow-origin'] === undefined && res.headers.vary === 'Origin',
			`Origin ${o} matches no rule: no Allow-Origin, but Vary: Origin`, `${res.status} ${res.headers['access-control-allow-origin']} ${res.headers.vary}`);
	}
	const pre = await r({ method: 'OPTIONS', path: `/${T}()`, noAuth: true, headers: { Origin: 'http://app.contoso.com', 'Access-Control-Request-Method': 'PUT' } });
	ok(pre.status === 200 && pre.headers['access-control-allow-origin'] === 'http://app.contoso.com', 'a preflight from a wildcard-allowed origin: 200', `${pre.status} ${errCode(pre)}`);
	const preNo = await r({ method: 'OPTIONS', path: `/${T}()`, noAuth: true, headers: { Origin: 'http://other.example', 'Access-Control-Request-Method': 'PUT' } });
	ok(preNo.status === 403 && errCode(preNo) === 'CorsPreflightFailure', 'a preflight from another origin: 403 CorsPreflightFailure', `${preNo.status} ${errCode(preNo)}`);
	const noMethod = await r({ method: 'OPTIONS', path: `/${T}()`, noAuth: true, headers: { Origin: 'http://app.contoso.com' } });
	ok(noMethod.status === 400 && errCode(noMethod) === 'InvalidHeaderValue' && /A required CORS header is not present\./.test(noMethod.text),
		'a preflight without Access-Control-Request-Method: 400 InvalidHeaderValue, "A required CORS header is not present."', `${noMethod.status} ${errCode(noMethod)} ${noMethod.text.slice(0, 200)}`);
	const noOrigin = await r({ method: 'OPTIONS', path: `/${T}()`, noAuth: true, headers: { 'Access-Control-Request-Method': 'GET' } });
	ok(noOrigin.status === 400 && errCode(noOrigin) === 'InvalidHeaderValue', 'a preflight without Origin: 400 InvalidHeaderValue', `${noOrigin.status} ${errCode(noOrigin)}`);
	for (const bad of ['http://a b.example', 'http://\u00e9.example']) {
		const res = await setProps(props(bad));
		ok(res.status === 400, `an allowed origin ${JSON.stringify(bad)}: 400`, `${res.status}`);
	}
	const star = await setProps(props('*'));
	const anyO = await get('http://anything.example');
	ok(star.status === 202 && anyO.headers['access-control-allow-origin'] === '*' && anyO.headers.vary === undefined, 'a rule of "*": Allow-Origin *, no Vary', `${anyO.headers['access-control-allow-origin']} ${anyO.headers.vary}`);
	const off = await setProps('<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors/></StorageServiceProperties>');
	const noRules = await get('http://app.contoso.com');
	ok(off.status === 202 && noRules.headers.vary === undefined && noRules.headers['access-control-allow-origin'] === undefined,
		'no rules at all: neither Allow-Origin nor Vary', `${off.status} ${noRules.headers.vary}`);
}

// ---------------------------------------------------------------- 9. If-Match: w/"…"
{
	const ins = await r({ method: 'POST', path: `/${T}`, body: { PartitionKey: 'e', RowKey: '1', V: 1 } });
	const etag = ins.headers.etag ?? '';
	const lower = 'w' + etag.slice(1);
	const upd = await r({ method: 'PUT', path: `/${T}(PartitionKey='e',RowKey='1')`, body: { PartitionKey: 'e', RowKey: '1', V: 2 }, headers: { 'If-Match': lower } });
	ok(etag.startsWith('W/"') && upd.status === 204, 'If-Match w/"<the current ETag>": 204 (the same weak ETag)', `${etag} ${upd.status} ${errCode(upd)}`);
	const stale = await r({ method: 'PUT', path: `/${T}(PartitionKey='e',RowKey='1')`, body: { PartitionKey: 'e', RowKey: '1', V: 3 }, headers: { 'If-Match': lower } });
	ok(stale.status === 412 && errCode(stale) === 'UpdateConditionNotSatisfied', 'If-Match w/"<an older ETag>": 412 UpdateConditionNotSatisfied', `${stale.status} ${errCode(stale)}`);
	const merge = await r({ method: 'MERGE', path: `/${T}(PartitionKey='e',RowKey='1')`, body: { W: 1 }, headers: { 'If-Match': 'w/"datetime\'2000-01-01T00%3A00%3A00Z\'"' } });
	ok(merge.status === 412, 'MERGE with If-Match w/"…" of another time: 412', `${merge.status} ${errCode(merge)}`);
	const cur = (await r({ path: `/${T}(PartitionKey='e',RowKey='1')` })).headers.etag ?? '';
	const cs = await batch([changesetPart([subRequest('DELETE', `/${T}(PartitionKey='e',RowKey='1')`, { headers: { 'If-Match': 'w' + cur.slice(1) } })])]);
	const gone = await r({ path: `/${T}(PartitionKey='e',RowKey='1')` });
	ok(cs.status === 202 && /HTTP\/1\.1 204 No Content/.test(cs.text) && gone.status === 404, 'a changeset DELETE with If-Match w/"…": 204, deleted', `${cs.status} ${gone.status} ${cs.text.slice(0, 300)}`);
	for (const bad of ['x/"a"', 'w"a"', 'w/a']) {
		const res = await r({ method: 'PUT', path: `/${T}(PartitionKey='q',RowKey='1')`, body: { PartitionKey: 'q', RowKey: '1' }, headers: { 'If-Match': bad } });
		ok(res.status === 400 && errCode(res) === 'InvalidInput', `If-Match ${bad}: still 400 InvalidInput`, `${res.status} ${errCode(res)}`);
	}
}

// ---------------------------------------------------------------- a trailing '/' after the resource
// (Azurite's REST tests send Tables/ and $batch/; scripts written against the service list tables
// at https://<account>.table.core.windows.net/Tables/, signed over that path)
{
	const name = 'slash' + crypto.randomBytes(4).toString('hex');
	const made = await r({ method: 'POST', path: '/Tables/', body: { TableName: name } });
	ok(made.status === 201 && made.json?.TableName === name, 'POST /Tables/: 201, the table created', `${made.status} ${errCode(made)}`);
	const listed = await r({ path: '/Tables/' });
	ok(listed.status === 200 && listed.json?.value?.some((t) => t.TableName === name), 'GET /Tables/: the tables', `${listed.status} ${errCode(listed)}`);
	const ins = await r({ method: 'POST', path: `/${name}()/`, body: { PartitionKey: 'a', RowKey: 'b' } });
	const one = await r({ path: `/${name}(PartitionKey='a',RowKey='b')/` });
	const page = await r({ path: `/${name}/` });
	ok(ins.status === 201 && one.status === 200 && one.json?.RowKey === 'b' && page.status === 200 && page.json?.value?.length === 1,
		't()/, the entity\'s address and t/ with a trailing /', `${ins.status} ${one.status} ${page.status}`);
	const b = 'batch_' + crypto.randomUUID();
	const viaBatch = await r({ method: 'POST', path: '/$batch/', body: batchBody(b, [subRequest('GET', `/${name}(PartitionKey='a',RowKey='b')`)]),
		headers: { 'Content-Type': `multipart/mixed; boundary=${b}` } });
	ok(viaBatch.status === 202 && /HTTP\/1\.1 200 OK/.test(viaBatch.text), 'POST /$batch/: 202', `${viaBatch.status} ${errCode(viaBatch)}`);
	const two = await r({ path: '/Tables//' });
	ok(two.status === 400 && errCode(two) === 'InvalidUri', 'two trailing slashes: still 400 InvalidUri', `${two.status} ${errCode(two)}`);
	const noAcct = await r({ path: '/', pathAccount: `${DEV.name}/`, query: 'restype=service&comp=properties' });
	ok(noAcct.status === 400 && errCode(noAcct) === 'InvalidUri', "'/account//' is no resource", `${noAcct.status} ${errCode(noAcct)}`);
	await r({ method: 'DELETE', path: `/Tables('${name}')/` });
	const gone = await r({ path: `/Tables('${name}')` });
	ok(gone.status === 404, "DELETE /Tables('t')/: deleted", `${gone.status}`);
}

// ---------------------------------------------------------------- a SAS field given twice
{
	const good = await r({ path: `/${T}()`, query: tableSas(T, 'r'), noAuth: true });
	const twice = await r({ path: `/${T}()`, query: tableSas(T, 'r') + '&sig=duplicated-signature', noAuth: true });
	const spTwice = await r({ path: `/${T}()`, query: tableSas(T, 'r') + '&sp=raud', noAuth: true });
	ok(good.status === 200 && twice.status === 403 && errCode(twice) === 'AuthenticationFailed' && spTwice.status === 403,
		'a SAS whose sig (or sp) is given twice: 403 AuthenticationFailed, whatever the first signs', `${good.status} ${twice.status} ${errCode(twice)} ${spTwice.status}`);
}

await r({ method: 'DELETE', path: `/Tables('${T}')` });
process.exit(summary() ? 0 : 1);
