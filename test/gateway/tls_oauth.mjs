// test/gateway/tls_oauth.mjs - tablestore-gateway over HTTPS, and bearer tokens:
//   node test/gateway/tls_oauth.mjs BASIC_PORT SIGNED_PORT PLAIN_PORT JWT_PRIVATE_KEY_PEM SDK_PACKAGE_JSON
// BASIC_PORT: --cert/--key --oauth basic (claims checked, signatures not); SIGNED_PORT: the same
// with --oauth-keys (RS256 verified against the key pair whose private half is given); PLAIN_PORT:
// the plain-HTTP gateway without --oauth. Run with NODE_EXTRA_CA_CERTS naming the gateway's
// self-signed certificate. Prints one line per check, then "N passed, N failed".
import { createRequire } from 'node:module';
import { createPrivateKey, generateKeyPairSync, randomUUID, sign } from 'node:crypto';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';

const [basicPort, signedPort, plainPort, keyFile, pkg] = process.argv.slice(2);
const require = createRequire(pkg);
const { AzureNamedKeyCredential, AzureSASCredential, TableClient, TableServiceClient, generateTableSas } = require('@azure/data-tables');

const ACCOUNT = 'devstoreaccount1';
const KEY = 'Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==';
const jwtKey = createPrivateKey(readFileSync(keyFile));
const otherKey = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey;
const opts = { retryOptions: { maxRetries: 0 } };
let passed = 0, failed = 0;

async function check(name, fn) {
	try {
		await fn();
		passed++;
		console.log(`ok   ${name}`);
	} catch (e) {
		failed++;
		console.log(`FAIL ${name}: ${e.statusCode ?? ''} ${e.code ?? ''} ${String(e.message).split('\n')[0].slice(0, 200)}`);
	}
}
function eq(a, b, what) {
	if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: ${JSON.stringify(a)} != ${JSON.stringify(b)}`);
}
async function refused(promise, status, code, what) {
	try {
		await promise;
	} catch (e) {
		const got = e.statusCode ?? e.status;
		if (got !== status || (code && e.code !== code)) throw new Error(`${what}: expected ${status} ${code ?? ''}, got ${got} ${e.code ?? ''}`);
		return;
	}
	throw new Error(`${what}: expected ${status}, but it succeeded`);
}

const b64url = (buf) => Buffer.from(buf).toString('base64').replace(/=+$/, '').replace(/\+/g, '-').replace(/\//g, '_');
function jwt(claims, { key = jwtKey, alg = 'RS256', header = {} } = {}) {
	const now = Math.floor(Date.now() / 1000);
	const payload = { aud: 'https://storage.azure.com', iss: 'https://sts.windows.net/72f988bf-86f1-41af-91ab-2d7cd011db47/',
		iat: now - 60, nbf: now - 60, exp: now + 3600, oid: randomUUID(), ...claims };
	const head = b64url(JSON.stringify({ alg, typ: 'JWT', ...header }));
	const body = b64url(JSON.stringify(payload));
	const sig = alg === 'RS256' ? b64url(sign('sha256', Buffer.from(`${head}.${body}`), key)) : '';
	return `${head}.${body}.${sig}`;
}
const tokenCredential = (token) => ({ getToken: async () => ({ token, expiresOnTimestamp: Date.now() + 3600_000 }) });
const endpoint = (port) => `https://127.0.0.1:${port}/${ACCOUNT}`;

// a raw request (for what the SDK does not send); resolves { status, headers, text }
function raw(mod, port, path, headers = {}, method = 'GET') {
	return new Promise((resolve, reject) => {
		const req = mod.request({ host: '127.0.0.1', port, path, method, headers: { 'x-ms-version': '2019-02-02', Accept: 'application/json;odata=nometadata', ...headers } }, (res) => {
			const chunks = [];
			res.on('data', (c) => chunks.push(c));
			res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, text: Buffer.concat(chunks).toString() }));
		});
		req.on('error', reject);
		req.end();
	});
}

const table = 'tls' + Date.now().toString(36);
const keyCred = new AzureNamedKeyCredential(ACCOUNT, KEY);

await check('HTTPS: Shared Key through the SDK (create table, insert, query)', async () => {
	await new TableServiceClient(endpoint(basicPort), keyCred, opts).createTable(table);
	const tc = new TableClient(endpoint(basicPort), table, keyCred, opts);
	await tc.createEntity({ partitionKey: 'p', rowKey: 'r', v: 1 });
	const all = [];
	for await (const e of tc.listEntities()) all.push(e.rowKey);
	eq(all, ['r'], 'the entities');
});
await check('HTTPS: odata.metadata names the https base; an unsigned request is 403', async () => {
	const res = await raw(https, basicPort, `/${ACCOUNT}/${table}(PartitionKey='p',RowKey='r')`,
		{ Accept: 'application/json;odata=minimalmetadata', Authorization: `Bearer ${jwt({})}` });
	eq(res.status, 200, 'status');
	const meta = JSON.parse(res.text)['odata.metadata'];
	if (!meta?.startsWith(`https://127.0.0.1:${basicPort}/${ACCOUNT}/$metadata#`)) throw new Error(`odata.metadata ${meta}`);
	eq((await raw(https, basicPort, `/${ACCOUNT}/Tables`, { Authorization: 'none' })).status, 403, 'an unsigned request');
});
await check('HTTPS: a SAS with spr=https is accepted', async () => {
	const sas = generateTableSas(table, keyCred, { permissions: { query: true }, protocol: 'https', expiresOn: new Date(Date.now() + 3600_000) });
	const e = await new TableClient(endpoint(basicPort), table, new AzureSASCredential(sas), opts).getEntity('p', 'r');
	eq(e.v, 1, 'the entity');
});
await check('HTTPS: a plain-HTTP request to the TLS port gets no answer as HTTP', async () => {
	const res = await raw(http, basicPort, `/${ACCOUNT}/Tables`).catch((e) => ({ error: e.code ?? e.message }));
	if (res.status === 200) throw new Error('a plain HTTP request was served');
});

await check('bearer (basic): a token for https://storage.azure.com reads and writes', async () => {
	const tc = new TableClient(endpoint(basicPort), table, tokenCredential(jwt({})), opts);
	await tc.upsertEntity({ partitionKey: 'p', rowKey: 'bearer', v: 2 });
	eq((await tc.getEntity('p', 'bearer')).v, 2, 'the entity');
	const svc = new TableServiceClient(endpoint(basicPort), tokenCredential(jwt({})), opts);
	const names = [];
	for await (const t of svc.listTables()) names.push(t.name);
	if (!names.includes(table)) throw new Error('the table is not listed');
});
await check('bearer (basic): the account\'s own audience and an audience list', async () => {
	await new TableClient(endpoint(basicPort), table, tokenCredential(jwt({ aud: `https://${ACCOUNT}.table.core.windows.net/` })), opts).getEntity('p', 'r');
	await new TableClient(endpoint(basicPort), table, tokenCredential(jwt({ aud: ['api://other', 'https://storage.azure.com/'] })), opts).getEntity('p', 'r');
	// the account's endpoint in the national clouds (a token for such an account names its cloud)
	for (const suffix of ['core.chinacloudapi.cn', 'core.usgovcloudapi.net/', 'core.cloudapi.de'])
		await new TableClient(endpoint(basicPort), table, tokenCredential(jwt({ aud: `https://${ACCOUNT}.table.${suffix}` })), opts).getEntity('p', 'r');
});
const now = Math.floor(Date.now() / 1000);
for (const [what, claims] of [
	['expired an hour ago', { exp: now - 3600 }],
	['not valid for another hour', { nbf: now + 3600 }],
	['another audience', { aud: 'https://vault.azure.net' }],
	['another account\'s endpoint', { aud: 'https://someoneelse.table.core.windows.net' }],
	['another account\'s endpoint in a national cloud', { aud: 'https://someoneelse.table.core.chinacloudapi.cn' }],
	['this account\'s endpoint of another service', { aud: `https://${ACCOUNT}.blob.core.windows.net` }],
	['an issuer that is not Entra ID', { iss: 'https://evil.example/tenant/' }],
	['no exp', { exp: undefined }],
]) {
	await check(`bearer (basic): ${what} is 401 InvalidAuthenticationInfo`, async () => {
		const c = { ...claims };
		for (const k of Object.keys(c)) if (c[k] === undefined) c[k] = null;
		const token = jwt(c).replace(/^[^.]+\.[^.]+/, (hp) => {
			// a null claim is left out
			const [h, p] = hp.split('.');
			const body = JSON.parse(Buffer.from(p.replace(/-/g, '+').replace(/_/g, '/'), 'base64').toString());
			for (const k of Object.keys(body)) if (body[k] === null) delete body[k];
			return `${h}.${b64url(JSON.stringify(body))}`;
		});
		const res = await raw(https, basicPort, `/${ACCOUNT}/${table}()`, { Authorization: `Bearer ${token}` });
		eq(res.status, 401, 'status');
		eq(res.headers['x-ms-error-code'], 'InvalidAuthenticationInfo', 'code');
		if (!String(res.headers['www-authenticate'] ?? '').startsWith('Bearer ')) throw new Error('no WWW-Authenticate: Bearer');
	});
}
for (const [what, token] of [['not a JWT', 'abc'], ['four parts', 'a.b.c.d'], ['a payload that is not JSON', `${b64url('{"alg":"none"}')}.${b64url('nope')}.`]]) {
	await check(`bearer (basic): ${what} is 401`, async () => {
		eq((await raw(https, basicPort, `/${ACCOUNT}/Tables`, { Authorization: `Bearer ${token}` })).status, 401, 'status');
	});
}
await check('bearer: refused by a gateway without --oauth (plain HTTP)', async () => {
	const res = await raw(http, plainPort, `/${ACCOUNT}/Tables`, { Authorization: `Bearer ${jwt({})}`, 'x-ms-date': new Date().toUTCString() });
	eq(res.status, 403, 'status');
	eq(res.headers['x-ms-error-code'], 'AuthenticationFailed', 'code');
});

await check('bearer (RS256): a token signed with the configured key by a trusted issuer works (v1 and v2 issuers)', async () => {
	const tc = new TableClient(endpoint(signedPort), table, tokenCredential(jwt({})), opts);
	eq((await tc.getEntity('p', 'r')).v, 1, 'the entity');
	const v2 = jwt({ iss: 'https://login.microsoftonline.com/72f988bf-86f1-41af-91ab-2d7cd011db47/v2.0' });
	eq((await new TableClient(endpoint(signedPort), table, tokenCredential(v2), opts).getEntity('p', 'r')).v, 1, 'the entity (v2.0 issuer)');
});
for (const [what, token] of [
	['signed with the key, by another tenant', () => jwt({ iss: 'https://sts.windows.net/00000000-0000-0000-0000-000000000000/' })],
	['signed with another key', () => jwt({}, { key: otherKey })],
	['unsigned (alg none)', () => jwt({}, { alg: 'none' })],
	['a changed payload', () => { const t = jwt({}).split('.'); const t2 = jwt({ oid: 'someone-else' }).split('.'); return `${t[0]}.${t2[1]}.${t[2]}`; }],
]) {
	await check(`bearer (RS256): ${what} is 401`, async () => {
		const res = await raw(https, signedPort, `/${ACCOUNT}/${table}()`, { Authorization: `Bearer ${token()}` });
		eq(res.status, 401, 'status');
	});
}
await check('bearer (RS256): the SDK with a token signed by another key is refused', () =>
	refused(new TableClient(endpoint(signedPort), table, tokenCredential(jwt({}, { key: otherKey })), opts).getEntity('p', 'r'), 401, undefined, 'getEntity'));

await check('cleanup', () => new TableServiceClient(endpoint(basicPort), keyCred, opts).deleteTable(table));
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
