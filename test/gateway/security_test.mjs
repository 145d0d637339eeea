// test/gateway/security_test.mjs - the gateway as an attacker tries it (issue 23): account
// isolation both ways, what each account SAS resource type (srt) reaches, authentication before
// the body, Content-MD5 and x-ms-content-crc64, framing spelled oddly, the read-only -secondary
// endpoint, secrets in the log, processing instructions in XML, CORS method case.
// Started by test/gateway/run.sh against a gateway with two configured accounts, each with a
// database of its own:
//   node security_test.mjs --port N --a NAME:KEY --b NAME:KEY --log FILE
import crypto from 'node:crypto';
import fs from 'node:fs';
import { account, accountSas, args, DEV, errCode, ok, raw, req, signedHead, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const ACCT_A = account(A.a);
const ACCT_B = account(A.b);
const LOG = A.log;
const T = 'sec' + crypto.randomBytes(4).toString('hex');
const r = (o) => req({ port: PORT, ...o });
const md5 = (s) => crypto.createHash('md5').update(s).digest('base64');

// ---------------------------------------------------------------- accounts are isolated
{
	const ca = await r({ account: ACCT_A, method: 'POST', path: '/Tables', body: { TableName: T } });
	ok(ca.status === 201, 'account A creates a table', `${ca.status} ${ca.text.slice(0, 200)}`);
	const ins = await r({ account: ACCT_A, method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 'secret', V: 'a' } });
	ok(ins.status === 201, 'account A inserts an entity', `${ins.status}`);

	const listB = await r({ account: ACCT_B, path: '/Tables' });
	ok(listB.status === 200 && !listB.text.includes(T), "account B's Query Tables does not list A's table", listB.text.slice(0, 300));
	const readB = await r({ account: ACCT_B, path: `/${T}()` });
	ok(readB.status === 404 && errCode(readB) === 'TableNotFound', "account B reading a table of A's name: 404 TableNotFound (its own database has none)", `${readB.status} ${readB.text.slice(0, 200)}`);
	const pointB = await r({ account: ACCT_B, path: `/${T}(PartitionKey='p',RowKey='secret')` });
	ok(pointB.status === 404, "account B's point read of A's entity: 404", `${pointB.status}`);
	const createB = await r({ account: ACCT_B, method: 'POST', path: '/Tables', body: { TableName: T } });
	ok(createB.status === 201, 'account B may create a table of the same name: its own', `${createB.status} ${createB.text.slice(0, 200)}`);
	const listA = await r({ account: ACCT_A, path: `/${T}()` });
	ok(listA.status === 200 && listA.json?.value?.length === 1, "account A still sees only its own entity", listA.text.slice(0, 300));

	// B's key on A's path, A's key on B's path
	const crossAB = await r({ account: ACCT_B, pathAccount: ACCT_A.name, path: `/${T}()`,
		headers: {}, key: ACCT_B.key });
	ok(crossAB.status === 403, "B's key signing a request to A's path: 403", `${crossAB.status}`);
	const crossSig = await r({ account: { name: ACCT_A.name, key: ACCT_B.key }, path: `/${T}()` });
	ok(crossSig.status === 403 && errCode(crossSig) === 'AuthenticationFailed', "A's name with B's key: 403 AuthenticationFailed", `${crossSig.status}`);
	const sasB = accountSas(ACCT_B, { sp: 'rl', srt: 'sco' });
	const sasOnA = await r({ pathAccount: ACCT_A.name, path: `/${T}()`, query: sasB, noAuth: true });
	ok(sasOnA.status === 403, "B's account SAS used on A's path: 403", `${sasOnA.status}`);

	// the development account does not exist once accounts are configured, whatever its key
	const dev = await r({ account: DEV, path: '/Tables' });
	ok(dev.status === 403 && errCode(dev) === 'AuthenticationFailed', 'devstoreaccount1 with the public key: 403 (configured accounts replace it)', `${dev.status}`);
	const devKeyOnA = await r({ account: { name: ACCT_A.name, key: DEV.key }, path: '/Tables' });
	ok(devKeyOnA.status === 403, "the public development key on account A: 403", `${devKeyOnA.status}`);
}

// ---------------------------------------------------------------- account SAS resource types
{
	const asas = (sp, srt) => accountSas(ACCT_A, { sp, srt });
	const get = (path, query, extra = '') => r({ pathAccount: ACCT_A.name, path, query: query + extra, noAuth: true });
	for (const srt of ['c', 'sc', 's']) {
		const q = asas('rl', srt);
		const rows = await get(`/${T}()`, q);
		ok(rows.status === 403 && errCode(rows) === 'AuthorizationResourceTypeMismatch', `account SAS srt=${srt}: GET t() is 403 AuthorizationResourceTypeMismatch`, `${rows.status} ${errCode(rows)} ${rows.text.slice(0, 160)}`);
		const rows2 = await get(`/${T}`, q);
		ok(rows2.status === 403, `account SAS srt=${srt}: GET t is 403`, `${rows2.status}`);
		const filtered = await get(`/${T}()`, q, `&$filter=${encodeURIComponent("PartitionKey eq 'p'")}`);
		ok(filtered.status === 403, `account SAS srt=${srt}: GET t() with $filter is 403`, `${filtered.status}`);
		const point = await get(`/${T}(PartitionKey='p',RowKey='secret')`, q);
		ok(point.status === 403, `account SAS srt=${srt}: a point read is 403`, `${point.status}`);
		const secondary = await r({ pathAccount: `${ACCT_A.name}-secondary`, path: `/${T}()`, query: q, noAuth: true });
		ok(secondary.status === 403, `account SAS srt=${srt}: GET t() on -secondary is 403`, `${secondary.status}`);
	}
	const o = asas('r', 'o');
	const rowsO = await get(`/${T}()`, o);
	ok(rowsO.status === 200 && rowsO.json?.value?.length === 1, 'account SAS srt=o sp=r: GET t() lists the entities', `${rowsO.status}`);
	const tablesC = await get('/Tables', asas('l', 'c'));
	ok(tablesC.status === 200, 'account SAS srt=c sp=l: Query Tables', `${tablesC.status}`);
	const tablesO = await get('/Tables', asas('l', 'o'));
	ok(tablesO.status === 403 && errCode(tablesO) === 'AuthorizationResourceTypeMismatch', 'account SAS srt=o: Query Tables is 403', `${tablesO.status}`);
	const tablesR = await get('/Tables', asas('r', 'c'));
	ok(tablesR.status === 403 && errCode(tablesR) === 'AuthorizationPermissionMismatch', 'account SAS srt=c sp=r: Query Tables needs l', `${tablesR.status} ${errCode(tablesR)}`);
	const propsS = await get('/', asas('r', 's'), '&restype=service&comp=properties');
	ok(propsS.status === 200, 'account SAS srt=s sp=r: Get Service Properties', `${propsS.status}`);
	const propsCO = await get('/', asas('r', 'co'), '&restype=service&comp=properties');
	ok(propsCO.status === 403, 'account SAS srt=co: Get Service Properties is 403', `${propsCO.status}`);
	const createO = await r({ pathAccount: ACCT_A.name, method: 'POST', path: '/Tables', query: asas('acw', 'o'), noAuth: true, body: { TableName: T + 'x' } });
	ok(createO.status === 403, 'account SAS srt=o: Create Table is 403', `${createO.status}`);
	const insertC = await r({ pathAccount: ACCT_A.name, method: 'POST', path: `/${T}`, query: asas('a', 'c'), noAuth: true, body: { PartitionKey: 'p', RowKey: 'c' } });
	ok(insertC.status === 403, 'account SAS srt=c: Insert Entity is 403', `${insertC.status}`);
	const acl = await get(`/${T}`, asas('rwdlacup', 'sco'), '&comp=acl');
	ok(acl.status === 403, 'account SAS with everything: Get Table ACL is 403 (account key only)', `${acl.status}`);
}

// ---------------------------------------------------------------- authentication before the body
{
	// an unsigned request announcing 4 MiB is refused at its headers; the body is never sent
	const head = `PUT /${ACCT_A.name}/${T}(PartitionKey='p',RowKey='big') HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 4000000\r\n\r\n`;
	const res = await raw(PORT, [head], { timeoutMs: 5000 });
	ok(res.status === 403 && res.closed && res.ms < 3000, 'unauthenticated 4 MB upload: 403 from the headers alone, connection closed', `${res.status} closed=${res.closed} ${res.ms}ms`);
	const badSig = await raw(PORT, [signedHead(PORT, { name: ACCT_A.name, key: ACCT_B.key }, 'PUT', `/${ACCT_A.name}/${T}(PartitionKey='p',RowKey='big')`,
		{ 'Content-Type': 'application/json', 'Content-Length': '4000000' })], { timeoutMs: 5000 });
	ok(badSig.status === 403 && badSig.closed, 'a wrong signature with a 4 MB body announced: 403 before the body, closed', `${badSig.status} closed=${badSig.closed}`);
}

// ---------------------------------------------------------------- Content-MD5, x-ms-content-crc64
{
	const body = JSON.stringify({ PartitionKey: 'p', RowKey: 'md5' });
	const good = await r({ account: ACCT_A, method: 'POST', path: `/${T}`, body, headers: { 'Content-MD5': md5(body) } });
	ok(good.status === 201, 'insert with the right Content-MD5: 201', `${good.status} ${good.text.slice(0, 200)}`);
	const other = JSON.stringify({ PartitionKey: 'p', RowKey: 'md5b' });
	const bad = await r({ account: ACCT_A, method: 'POST', path: `/${T}`, body: other, headers: { 'Content-MD5': md5(body) } });
	ok(bad.status === 400 && errCode(bad) === 'Md5Mismatch', 'a signed Content-MD5 of another body: 400 Md5Mismatch', `${bad.status} ${errCode(bad)}`);
	const gone = await r({ account: ACCT_A, path: `/${T}(PartitionKey='p',RowKey='md5b')` });
	ok(gone.status === 404, '... and nothing was written', `${gone.status}`);
	const malformed = await r({ account: ACCT_A, method: 'POST', path: `/${T}`, body: other, headers: { 'Content-MD5': 'bm90IGFuIE1ENQ==' } });
	ok(malformed.status === 400 && errCode(malformed) === 'InvalidMd5', 'a Content-MD5 that is not 16 bytes: 400 InvalidMd5', `${malformed.status} ${errCode(malformed)}`);
	const crc = await r({ account: ACCT_A, method: 'POST', path: `/${T}`, body: other, headers: { 'x-ms-content-crc64': 'AAAAAAAAAAA=' } });
	ok(crc.status === 400 && errCode(crc) === 'Crc64Mismatch', 'a wrong x-ms-content-crc64: 400 Crc64Mismatch', `${crc.status} ${errCode(crc)}`);
}

// ---------------------------------------------------------------- framing
{
	const sp = await raw(PORT, [`POST /${ACCT_A.name}/${T} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding : chunked\r\nContent-Length: 5\r\n\r\nhello`], { timeoutMs: 4000 });
	ok(sp.status === 400 && sp.closed, 'Transfer-Encoding with a space before the colon: 400 and closed', `${sp.status} closed=${sp.closed} ${sp.text.slice(0, 80)}`);
	const gz = await raw(PORT, [`POST /${ACCT_A.name}/${T} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nhello`], { timeoutMs: 4000 });
	ok(gz.status === 400 && gz.closed, 'Transfer-Encoding gzip without Content-Length: 400 and closed', `${gz.status} closed=${gz.closed}`);
	const two = await raw(PORT, [`POST /${ACCT_A.name}/${T} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`], { timeoutMs: 4000 });
	ok(two.status === 400 && two.closed, 'two Transfer-Encoding headers: 400 and closed', `${two.status} closed=${two.closed}`);
	const fold = await raw(PORT, [`POST /${ACCT_A.name}/${T} HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:\r\n chunked\r\nContent-Length: 5\r\n\r\nhello`], { timeoutMs: 4000 });
	ok(fold.status === 400 && fold.closed, 'an obs-folded Transfer-Encoding beside Content-Length: 400 and closed', `${fold.status} closed=${fold.closed} ${fold.text.slice(0, 60)}`);
}

// ---------------------------------------------------------------- the -secondary endpoint is read-only
{
	const sec = `${ACCT_A.name}-secondary`;
	const read = await r({ account: ACCT_A, pathAccount: sec, path: `/${T}()` });
	ok(read.status === 200, 'a read on -secondary: 200', `${read.status} ${read.text.slice(0, 200)}`);
	const w = await r({ account: ACCT_A, pathAccount: sec, method: 'POST', path: `/${T}`, body: { PartitionKey: 'p', RowKey: 's2' } });
	ok(w.status === 403 && errCode(w) === 'InsufficientAccountPermissions', 'a write on -secondary: 403 InsufficientAccountPermissions', `${w.status} ${w.text.slice(0, 200)}`);
	const del = await r({ account: ACCT_A, pathAccount: sec, method: 'DELETE', path: `/${T}(PartitionKey='p',RowKey='secret')`, headers: { 'If-Match': '*' } });
	ok(del.status === 403, 'a delete on -secondary: 403', `${del.status}`);
	const none = await r({ account: ACCT_A, path: `/${T}(PartitionKey='p',RowKey='s2')` });
	const kept = await r({ account: ACCT_A, path: `/${T}(PartitionKey='p',RowKey='secret')` });
	ok(none.status === 404 && kept.status === 200, '... and nothing was written or deleted', `${none.status} ${kept.status}`);
}

// ---------------------------------------------------------------- XML, CORS, the log
{
	const pi = '<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers><?php echo 1 ?></SignedIdentifiers>';
	const acl = await r({ account: ACCT_A, method: 'PUT', path: `/${T}`, query: 'comp=acl', body: pi, headers: { 'Content-Type': 'application/xml' } });
	ok(acl.status === 400 && acl.text.includes('InvalidXmlDocument'), 'an ACL document with a processing instruction: 400 InvalidXmlDocument', `${acl.status} ${acl.text.slice(0, 200)}`);
	const props = '<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors><CorsRule><AllowedOrigins>http://app.example</AllowedOrigins>' +
		'<AllowedMethods>GET,PUT</AllowedMethods><AllowedHeaders>*</AllowedHeaders><ExposedHeaders>x-ms-*</ExposedHeaders><MaxAgeInSeconds>60</MaxAgeInSeconds></CorsRule></Cors></StorageServiceProperties>';
	const set = await r({ account: ACCT_A, method: 'PUT', path: '/', query: 'restype=service&comp=properties', body: props, headers: { 'Content-Type': 'application/xml' } });
	ok(set.status === 202, 'CORS rules set', `${set.status} ${set.text.slice(0, 200)}`);
	const pre = (method) => r({ account: ACCT_A, method: 'OPTIONS', path: `/${T}()`, noAuth: true,
		headers: { Origin: 'http://app.example', 'Access-Control-Request-Method': method } });
	const upper = await pre('GET');
	ok(upper.status === 200, 'preflight GET: 200', `${upper.status}`);
	const lower = await pre('get');
	ok(lower.status === 403 && errCode(lower) === 'CorsPreflightFailure', 'preflight "get" (methods are case-sensitive): 403', `${lower.status}`);
	const page = await r({ account: ACCT_A, path: `/${T}()`, query: '$top=1', headers: { Origin: 'http://app.example' } });
	const expose = page.headers['access-control-expose-headers'] ?? '';
	ok(page.status === 200 && !expose.includes('*') && expose.split(',').includes('x-ms-continuation-NextPartitionKey') &&
		expose.split(',').includes('x-ms-request-id'), 'Access-Control-Expose-Headers names the answer\'s x-ms-* headers, continuations included', expose);

	const secret = 'SECRETVALUE123';
	await r({ pathAccount: ACCT_A.name, path: '/Tables', query: `sv=2019-02-02&ss=t&srt=c&sp=l&se=2099-01-01&s%69g=${secret}`, noAuth: true });
	await r({ pathAccount: ACCT_A.name, path: '/Tables', query: `sv=2019-02-02&SIG=${secret}`, noAuth: true });
	await new Promise((res) => setTimeout(res, 200));
	const log = fs.readFileSync(LOG, 'utf8');
	ok(!log.includes(secret) && log.includes('s%69g=REDACTED'), 'the log redacts s%69g= and SIG= as sig=', log.split('\n').filter((l) => l.includes('Tables?')).slice(-2).join(' | '));
}

process.exit(summary() ? 0 : 1);
