// test/gateway/indexing_test.mjs - a table's indexing policy through the gateway (issue 26):
// Create Table's x-ms-tablestore-indexing-policy header, GET and PUT t?comp=indexingpolicy, the
// same answers for a filter under every policy, and bad input: malformed policies, unknown
// tables, a shared access signature (the account key only), the read-only -secondary endpoint;
// with --load-table, a loop of policy changes while that table's index is built.
// Started by test/gateway/run.sh:  node indexing_test.mjs --port N [--load-table T]
import crypto from 'node:crypto';
import { accountSas, args, DEV, errCode, ok, req, summary } from './http_lib.mjs';

const A = args();
const PORT = Number(A.port);
const r = (o) => req({ port: PORT, ...o });
const name = () => 'idx' + crypto.randomBytes(4).toString('hex');
const POLICY = 'comp=indexingpolicy';
const getPolicy = (t, o = {}) => r({ path: `/${t}`, query: POLICY, ...o });
const putPolicy = (t, body, o = {}) => r({ method: 'PUT', path: `/${t}`, query: POLICY, body, ...o });

// A table's service SAS (sv 2019-02-02), as the service's "Create a service SAS" page defines it:
// sp\nst\nse\n/table/<account>/<table>\nsi\nsip\nspr\nsv\nspk\nsrk\nepk\nerk
function tableSas(acct, table, { sp, si = '', se = '2099-01-01T00:00:00Z' }) {
	const sv = '2019-02-02';
	const sts = `${sp}\n\n${se}\n/table/${acct.name}/${table.toLowerCase()}\n${si}\n\n\n${sv}\n\n\n\n`;
	const sig = crypto.createHmac('sha256', Buffer.from(acct.key, 'base64')).update(sts, 'utf8').digest('base64');
	return new URLSearchParams({ sv, tn: table, sp, se, sig }).toString();
}

async function applied(t) {
	for (let i = 0; i < 200; i++) {
		const g = await getPolicy(t);
		if (g.headers['x-ms-tablestore-indexing-progress'] === '100') return g;
		await new Promise((s) => setTimeout(s, 50));
	}
	return getPolicy(t);
}

// the default: every property indexed
const T1 = name();
{
	const c = await r({ method: 'POST', path: '/Tables', body: { TableName: T1 } });
	ok(c.status === 201, 'Create Table without the header: 201', c.status);
	const g = await applied(T1);
	ok(g.status === 200 && g.json?.indexingMode === 'consistent' && g.json?.includedPaths?.[0]?.path === '/*',
		'GET ?comp=indexingpolicy: the default policy (consistent, /*)', g.text);
	ok(g.headers['x-ms-tablestore-indexing-progress'] === '100', 'and its progress header says 100 once applied', g.headers['x-ms-tablestore-indexing-progress']);
	ok(/^application\/json/.test(g.headers['content-type'] ?? ''), 'as application/json', g.headers['content-type']);
}

// a policy at creation
const T2 = name();
{
	const policy = JSON.stringify({ indexingMode: 'consistent', includedPaths: [{ path: '/*' }], excludedPaths: [{ path: '/Secret/?' }] });
	const c = await r({ method: 'POST', path: '/Tables', body: { TableName: T2 }, headers: { 'x-ms-tablestore-indexing-policy': policy } });
	ok(c.status === 201, 'Create Table with x-ms-tablestore-indexing-policy: 201', c.status + c.text);
	const g = await applied(T2);
	ok(g.json?.excludedPaths?.some((p) => p.path === '/Secret/?'), 'the table has the policy of the header', g.text);
}

// malformed policies at creation: 400, no table
for (const [bad, what] of [['{"indexingMode":"lazy"}', 'an unknown indexingMode'], ['{"indexingMode":', 'JSON cut short'],
	['{"indexingMode":"none","indexingMode":"consistent"}', 'a member given twice'], ['[1]', 'not an object'],
	['{"excludedPaths":[{"path":"Secret"}]}', 'a path without its leading /']]) {
	const t = name();
	const c = await r({ method: 'POST', path: '/Tables', body: { TableName: t }, headers: { 'x-ms-tablestore-indexing-policy': bad } });
	ok(c.status === 400 && errCode(c) === 'InvalidInput', `Create Table with ${what} in the header: 400 InvalidInput`, `${c.status} ${errCode(c)}`);
	const g = await r({ path: `/Tables('${t}')` });
	ok(g.status === 404, `and no table ${what === 'JSON cut short' ? '(cut JSON)' : '(' + what + ')'} was created`, g.status);
}
for (const [bad, what] of [['{"indexingMode":"none","x":"\u00e9"}', 'a byte that is not UTF-8 (latin-1 é)'],
	[JSON.stringify({ excludedPaths: Array.from({ length: 80 }, (_, i) => ({ path: `/Property${i}/?` })) }), 'more than 1 KiB (PUT takes it)']]) {
	const t = name();
	const c = await r({ method: 'POST', path: '/Tables', body: { TableName: t }, headers: { 'x-ms-tablestore-indexing-policy': bad } });
	ok(c.status === 400 && errCode(c) === 'InvalidHeaderValue', `${what} in the header: 400 InvalidHeaderValue`, `${c.status} ${errCode(c)}`);
	ok((await r({ path: `/Tables('${t}')` })).status === 404, `and no table was created (${what})`);
	if (what.startsWith('more than 1 KiB')) {
		await r({ method: 'POST', path: '/Tables', body: { TableName: t } });
		const p = await putPolicy(t, bad);
		ok(p.status === 202 && p.json?.excludedPaths?.length === 80, 'the same policy through PUT: 202, its 80 paths', `${p.status} ${p.text.slice(0, 120)}`);
		await r({ method: 'DELETE', path: `/Tables('${t}')` });
	}
}

// changing it online: entities written before and after, the same answers under each policy
{
	for (let i = 0; i < 30; i++)
		await r({ method: 'POST', path: `/${T1}`, body: { PartitionKey: 'p' + (i % 3), RowKey: String(i).padStart(3, '0'), Age: i, Name: 'n' + (i % 5) } });
	const filter = 'Age ge 10 and Age lt 20 or Name eq \'n3\'';
	const q = async () => (await r({ path: `/${T1}()`, query: new URLSearchParams({ $filter: filter }).toString() })).json?.value?.map((e) => e.RowKey).join(',');
	const before = await q();
	const p = await putPolicy(T1, { indexingMode: 'none' });
	ok(p.status === 202 && p.json?.indexingMode === 'none', 'PUT ?comp=indexingpolicy {"indexingMode":"none"}: 202 with the policy in its normal form', p.status + p.text);
	const g = await applied(T1);
	ok(g.json?.indexingMode === 'none' && g.headers['x-ms-tablestore-indexing-progress'] === '100', 'GET then: none, applied', g.text);
	const none = await q();
	ok(before && before === none, 'a filter answers the same rows under consistent and none', `${before} / ${none}`);
	const back = await putPolicy(T1, { indexingMode: 'consistent', excludedPaths: [{ path: '/Name/?' }] });
	ok(back.status === 202, 'PUT back to consistent (Name excluded): 202', back.status + back.text);
	await applied(T1);
	ok((await q()) === before, 'and the same rows again once the index is rebuilt', '');
}

// bad input to PUT and GET
{
	const m = await putPolicy(T1, '{"indexingMode": ');
	ok(m.status === 400 && errCode(m) === 'InvalidInput', 'PUT with malformed JSON: 400 InvalidInput', `${m.status} ${errCode(m)}`);
	const dup = await putPolicy(T1, '{"indexingMode":"none","indexingMode":"consistent"}');
	ok(dup.status === 400 && errCode(dup) === 'InvalidInput', 'PUT with a member given twice: 400 InvalidInput (read strictly, as the header)', `${dup.status} ${errCode(dup)}`);
	const names = Array.from({ length: 6 }, (_, i) => ({ path: `/${String.fromCharCode(65 + i)}${'x'.repeat(254)}/?` }));
	const big = await putPolicy(T1, { excludedPaths: names });
	ok(big.status === 400 && errCode(big) === 'InvalidInput', 'PUT naming more than 1500 bytes of properties: 400 InvalidInput', `${big.status} ${errCode(big)}`);
	const u = await putPolicy(T1, { indexingMode: 'consistent', spatialIndexes: [{ path: '/Place/*', types: ['Point'] }] });
	ok(u.status === 400 && errCode(u) === 'InvalidInput', 'PUT with what tablestore does not do (spatialIndexes): 400 InvalidInput', `${u.status} ${errCode(u)} ${u.text.slice(0, 200)}`);
	const g = await getPolicy(T1);
	ok(g.json?.excludedPaths?.some((p) => p.path === '/Name/?'), 'and the policy is unchanged after both', g.text);
	const nf = await getPolicy('nosuch' + crypto.randomBytes(3).toString('hex'));
	ok(nf.status === 404 && errCode(nf) === 'TableNotFound', 'GET on a table that does not exist: 404 TableNotFound', `${nf.status} ${errCode(nf)}`);
	const nfp = await putPolicy('nosuch' + crypto.randomBytes(3).toString('hex'), { indexingMode: 'none' });
	ok(nfp.status === 404 && errCode(nfp) === 'TableNotFound', 'PUT on a table that does not exist: 404 TableNotFound', `${nfp.status} ${errCode(nfp)}`);
	const post = await r({ method: 'POST', path: `/${T1}`, query: POLICY, body: {} });
	ok(post.status === 405 && /GET/.test(post.headers.allow ?? '') && /PUT/.test(post.headers.allow ?? ''),
		'POST ?comp=indexingpolicy: 405 with Allow GET, PUT', `${post.status} ${post.headers.allow}`);
	const parens = await r({ path: `/${T1}()`, query: POLICY });
	ok(parens.status === 400, 'GET t()?comp=indexingpolicy: 400 (only a table has it)', parens.status);
}

// credentials: the account key only (as for the table's ACL)
{
	const sas = accountSas(DEV, { sp: 'rwdlacu', srt: 'sco' });
	const g = await r({ path: `/${T1}`, query: `${POLICY}&${sas}`, noAuth: true });
	ok(g.status === 403 && errCode(g) === 'AuthorizationPermissionMismatch', 'GET with an account SAS of every permission and resource type: 403 AuthorizationPermissionMismatch', `${g.status} ${errCode(g)}`);
	const p = await r({ method: 'PUT', path: `/${T1}`, query: `${POLICY}&${sas}`, noAuth: true, body: { indexingMode: 'none' } });
	ok(p.status === 403 && errCode(p) === 'AuthorizationPermissionMismatch', 'PUT with it: 403 AuthorizationPermissionMismatch', `${p.status} ${errCode(p)}`);
	const tsas = tableSas(DEV, T1, { sp: 'raud' });
	const read = await r({ path: `/${T1}()`, query: `$top=1&${tsas}`, noAuth: true });
	ok(read.status === 200, 'a table SAS of every permission reads the table (the control)', `${read.status} ${errCode(read)}`);
	const tg = await r({ path: `/${T1}`, query: `${POLICY}&${tsas}`, noAuth: true });
	ok(tg.status === 403, 'GET with that table SAS: 403', `${tg.status} ${errCode(tg)}`);
	const tp = await r({ method: 'PUT', path: `/${T1}`, query: `${POLICY}&${tsas}`, noAuth: true, body: { indexingMode: 'none' } });
	ok(tp.status === 403, 'PUT with it: 403', `${tp.status} ${errCode(tp)}`);
	const n = await r({ method: 'PUT', path: `/${T1}`, query: POLICY, noAuth: true, body: { indexingMode: 'none' } });
	ok(n.status === 403 || n.status === 401, 'PUT without credentials: refused', `${n.status} ${errCode(n)}`);
	const bad = await r({ method: 'PUT', path: `/${T1}`, query: POLICY, key: crypto.randomBytes(64).toString('base64'), body: { indexingMode: 'none' } });
	ok(bad.status === 403, 'PUT signed with another key: 403', `${bad.status} ${errCode(bad)}`);
	const sec = await r({ method: 'PUT', path: `/${T1}`, query: POLICY, pathAccount: `${DEV.name}-secondary`, body: { indexingMode: 'none' } });
	ok(sec.status === 403, 'PUT on the -secondary endpoint: 403 (read-only)', `${sec.status} ${errCode(sec)}`);
	const g2 = await getPolicy(T1);
	ok(g2.json?.indexingMode === 'consistent', 'the policy is unchanged after every refusal', g2.text);
}

// a policy changed again and again while the index is being built (issue 31: one client's 24
// PUTs in 17 s crashed PostgreSQL - a deadlock between the PUT and the build, then a crash in the
// worker's error path), cycling three policies: every PUT is accepted and the last policy
// applied. run.sh loaded the table (--load-table), checks the server's log for processes
// terminated by a signal, and runs this file again with a gateway connected as a database owner
// that is not a superuser (GET ?comp=indexingpolicy during a build was 403 for it).
if (A['load-table']) {
	const T = A['load-table'];
	const statuses = [];
	for (let i = 0; i < 24; i++) {
		// three policies in turn: a change comes while the previous one's index is built and a
		// third one's is in place (with two index names, the third never applied: review 3)
		const p = await putPolicy(T, { indexingMode: 'consistent', excludedPaths: [{ path: ['/Code/?', '/Note/?', '/Name/?'][i % 3] }] });
		statuses.push(p.status === 202 ? 202 : `${p.status} ${errCode(p)}`);
		// pauses of 100 to 600 ms: changes at every moment of a build (its reading, its waits)
		await new Promise((s) => setTimeout(s, 100 + ((i * 137) % 500)));
	}
	ok(statuses.every((s) => s === 202), '24 PUT ?comp=indexingpolicy while the index is built: all 202', statuses.join(','));
	let g;
	for (let i = 0; i < 1200; i++) {
		g = await getPolicy(T);
		if (g.headers['x-ms-tablestore-indexing-progress'] === '100') break;
		await new Promise((s) => setTimeout(s, 100));
	}
	ok(g.headers['x-ms-tablestore-indexing-progress'] === '100' && g.json?.excludedPaths?.[0]?.path === '/Name/?',
		'then the last policy is applied (progress 100)', `${g.headers['x-ms-tablestore-indexing-progress']} ${g.text}`);
}

await r({ method: 'DELETE', path: `/Tables('${T1}')` });
await r({ method: 'DELETE', path: `/Tables('${T2}')` });
process.exit(summary() ? 0 : 1);
