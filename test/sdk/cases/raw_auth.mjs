// cases/raw_auth.mjs - Shared Key and Shared Key Lite with our own signer; requests that must be
// refused: no Authorization, a bad signature, a wrong key, another account, a signature over
// another path, a stale date. (The SDK itself signs with Shared Key Lite.)
import { randomBytes } from 'node:crypto';
import { eq, ok, test } from '../lib/harness.mjs';
import { canonicalizedResource } from '../lib/signer.mjs';

const AUTH = 'doc: Authorize with Shared Key';
const REFUSED = 'doc: Common REST API error codes: AuthenticationFailed 403 (NoAuthenticationInformation 401 for a request without credentials)';

function refused(r, what, { missing = false } = {}) {
	const statuses = missing ? [401, 403] : [403];
	const codes = missing ? ['AuthenticationFailed', 'NoAuthenticationInformation'] : ['AuthenticationFailed'];
	ok(statuses.includes(r.status), `${what}: expected ${statuses.join('/')}, got ${r.status} ${r.code ?? ''}`);
	ok(codes.includes(r.code), `${what}: expected ${codes.join('/')}, got ${r.code ?? '(no code)'}`);
	ok(r.headers['x-ms-request-id'], `${what}: x-ms-request-id on the refusal`);
}

test('raw.auth-canonical-resource', 'the signer builds the documented canonicalized resource (account twice with path-style URLs)',
	`${AUTH}: CanonicalizedResource = /account + path (+ ?comp=…)`, async (ctx) => {
		eq(canonicalizedResource('devstoreaccount1', '/devstoreaccount1/Tables'), '/devstoreaccount1/devstoreaccount1/Tables', 'path-style Tables');
		eq(canonicalizedResource('acc', '/mytable', 'comp=acl&timeout=5'), '/acc/mytable?comp=acl', 'comp kept, other parameters dropped');
		eq(canonicalizedResource('acc', "/t(PartitionKey='a%20b',RowKey='')", '$filter=x'), "/acc/t(PartitionKey='a%20b',RowKey='')", 'raw path kept as sent');
	});

test('raw.auth-shared-key', 'Shared Key signatures are accepted: a query, an insert with a Content-Type, a keyed read',
	`${AUTH}: Table service Shared Key string-to-sign VERB, Content-MD5, Content-Type, Date, CanonicalizedResource`, async (ctx) => {
		const tc = await ctx.newTable();
		const t = tc.tableName;
		const q = await ctx.raw.request({ path: 'Tables', auth: 'SharedKey' });
		eq(q.status, 200, `GET Tables (${q.code ?? ''})`);
		const ins = await ctx.raw.request({ method: 'POST', path: t, auth: 'SharedKey', body: { PartitionKey: 'a b', RowKey: "it's", v: 1 } });
		eq(ins.status, 201, `POST insert (${ins.code ?? ''})`);
		const get = await ctx.raw.request({ path: `${t}(PartitionKey='a%20b',RowKey='it''s')`, auth: 'SharedKey' });
		eq(get.status, 200, `GET a keyed entity (${get.code ?? ''})`);
	});

test('raw.auth-shared-key-date-header', 'Shared Key with the Date header instead of x-ms-date is accepted',
	`${AUTH}: Date is x-ms-date when present, else the Date header`, async (ctx) => {
		const r = await ctx.raw.request({ path: 'Tables', headers: { 'x-ms-date': null, Date: new Date().toUTCString() } });
		eq(r.status, 200, `status (${r.code ?? ''})`);
	});

test('raw.auth-shared-key-lite', 'Shared Key Lite signatures are accepted',
	`${AUTH}: Shared Key Lite for the Table service: Date \\n CanonicalizedResource`, async (ctx) => {
		const tc = await ctx.newTable();
		const r = await ctx.raw.request({ path: 'Tables', auth: 'SharedKeyLite' });
		eq(r.status, 200, `GET Tables (${r.code ?? ''})`);
		const ins = await ctx.raw.request({ method: 'POST', path: tc.tableName, auth: 'SharedKeyLite', body: { PartitionKey: 'p', RowKey: 'r' } });
		eq(ins.status, 201, `POST insert (${ins.code ?? ''})`);
	});

test('raw.auth-comp-acl', 'a signature over ?comp=acl reaches Get Table ACL',
	`${AUTH}: the comp parameter is part of the canonicalized resource; doc: Get Table ACL`, async (ctx) => {
		const tc = await ctx.newTable();
		const r = await ctx.raw.request({ path: tc.tableName, query: 'comp=acl', headers: { Accept: 'application/xml' } });
		eq(r.status, 200, `status (${r.code ?? ''})`);
		ok(/SignedIdentifiers/.test(r.text), 'an XML SignedIdentifiers body');
	});

test('raw.auth-missing', 'a request without Authorization is refused',
	REFUSED, async (ctx) => {
		refused(await ctx.raw.request({ path: 'Tables', auth: 'none' }), 'GET Tables without Authorization', { missing: true });
	});

test('raw.auth-bad-signature', 'a malformed or wrong signature is 403 AuthenticationFailed',
	REFUSED, async (ctx) => {
		refused(await ctx.raw.request({ path: 'Tables', headers: { Authorization: `SharedKey ${ctx.account}:bm90IGEgc2lnbmF0dXJl` } }), 'a wrong signature');
		refused(await ctx.raw.request({ path: 'Tables', headers: { Authorization: `SharedKey ${ctx.account}` } }), 'no signature');
		refused(await ctx.raw.request({ path: 'Tables', headers: { Authorization: 'Bearer abc' } }), 'an unknown scheme');
	});

test('raw.auth-wrong-key', 'a request signed with another key is 403 AuthenticationFailed',
	REFUSED, async (ctx) => {
		const key = randomBytes(64).toString('base64');
		refused(await ctx.raw.request({ path: 'Tables', key }), 'Shared Key with a random key');
		refused(await ctx.raw.request({ path: 'Tables', key, auth: 'SharedKeyLite' }), 'Shared Key Lite with a random key');
	});

test('raw.auth-other-account', 'a signature naming another account is 403',
	REFUSED, async (ctx) => {
		refused(await ctx.raw.request({ path: 'Tables', account: 'someoneelse' }), 'another account in Authorization');
	});

test('raw.auth-path-covered', 'a signature computed over one path does not authorize another',
	`${AUTH}: the canonicalized resource covers the path; ${REFUSED}`, async (ctx) => {
		const tc = await ctx.newTable();
		const { authorization } = await import('../lib/signer.mjs');
		const date = new Date().toUTCString();
		const headers = { 'x-ms-date': date, 'x-ms-version': '2019-02-02' };
		const sig = authorization('SharedKey', ctx.account, ctx.key, 'GET', headers, `${ctx.raw.basePath}/Tables`, '');
		refused(await ctx.raw.request({ path: `${tc.tableName}()`, headers: { ...headers, Authorization: sig } }), 'signature of /Tables used for a query');
		refused(await ctx.raw.request({ method: 'DELETE', path: `Tables('${tc.tableName}')`, headers: { ...headers, Authorization: sig } }), 'signature of GET used for DELETE');
	});

test('raw.auth-stale-date', 'a request dated 20 minutes ago is refused',
	`${AUTH}: the service ensures a request is no older than 15 minutes; ${REFUSED}`, async (ctx) => {
		const old = new Date(Date.now() - 20 * 60_000).toUTCString();
		refused(await ctx.raw.request({ path: 'Tables', headers: { 'x-ms-date': old } }), 'x-ms-date 20 minutes old');
	});

test('raw.auth-error-body', 'an authentication failure answers the JSON error body and x-ms-error-code',
	'contract §12: JSON body {"odata.error":{"code","message":{"lang","value"}}} and x-ms-error-code', async (ctx) => {
		const r = await ctx.raw.request({ path: 'Tables', headers: { Authorization: `SharedKey ${ctx.account}:AAAA` } });
		eq(r.status, 403, 'status');
		eq(r.headers['x-ms-error-code'], 'AuthenticationFailed', 'x-ms-error-code');
		eq(r.json?.['odata.error']?.code, 'AuthenticationFailed', 'odata.error.code');
		ok(typeof r.json?.['odata.error']?.message?.value === 'string', 'odata.error.message.value');
	});
