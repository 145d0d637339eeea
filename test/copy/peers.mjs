// test/copy/peers.mjs - what test/copy/run.sh asks of the Table endpoints, independently of
// tablestore-copy: raw HTTP with the development account's Shared Key (Node's crypto), so that
// the checks do not share a line of code with the program they check.
//
//   node peers.mjs seed URL TABLE              create TABLE and insert the edge entities (EDGE below)
//   node peers.mjs dump URL TABLE              every entity, normalised (normalise()), sorted
//   node peers.mjs etags URL TABLE             "pk<TAB>rk<TAB>etag" lines, sorted
//   node peers.mjs etags-raw URL TABLE         the same with the keys as they are (for psql's \copy)
//   node peers.mjs count URL TABLE             the number of entities, and of distinct keys
//   node peers.mjs normalise                   stdin: "pk<TAB>rk<TAB>json" (a database) or JSON Lines
//                                              (a directory's file) -> the normalised lines
//   node peers.mjs keys-json                   stdin "pk<TAB>rk<TAB>rest" -> keys as JSON strings, sorted
//   node peers.mjs sas URL account|table PERMS [TABLE]   a SAS token (the service's string to sign)
//   node peers.mjs create URL TABLE            create a table
// URL is http://127.0.0.1:PORT/devstoreaccount1.
import crypto from 'node:crypto';
import fs from 'node:fs';

const ACCOUNT = 'devstoreaccount1';
const KEY = Buffer.from('Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==', 'base64');

// Every EDM type and its edge values; keys and names beyond ASCII; a quote in a key. Double -0 is
// not here: Azurite keeps Doubles as JavaScript numbers and prints -0 as 0 (run.sh checks -0 on the
// paths without Azurite).
export const EDGE = [
	'{"PartitionKey":"types","RowKey":"a","S":"text","E":"","I":2147483647,"Imin":-2147483648,"I@odata.type":"Edm.Int32","Imin@odata.type":"Edm.Int32",' +
	'"L":"9223372036854775807","L@odata.type":"Edm.Int64","Lmin":"-9223372036854775808","Lmin@odata.type":"Edm.Int64",' +
	'"B":true,"F":false,"G":"68260b3f-beab-45e2-b900-33e2b442e724","G@odata.type":"Edm.Guid",' +
	'"Y":"AP8AAQI=","Y@odata.type":"Edm.Binary","Y0":"","Y0@odata.type":"Edm.Binary"}',
	'{"PartitionKey":"types","RowKey":"b","D":5.0,"D@odata.type":"Edm.Double","Z":0.0,"Z@odata.type":"Edm.Double",' +
	'"Den":4.9e-324,"Den@odata.type":"Edm.Double","Max":1.7976931348623157e308,"Max@odata.type":"Edm.Double",' +
	'"N":"NaN","N@odata.type":"Edm.Double","Inf":"Infinity","Inf@odata.type":"Edm.Double","NInf":"-Infinity","NInf@odata.type":"Edm.Double",' +
	'"Pi":3.141592653589793,"Pi@odata.type":"Edm.Double"}',
	'{"PartitionKey":"types","RowKey":"c","T":"1601-01-01T00:00:00Z","T@odata.type":"Edm.DateTime",' +
	'"Tmax":"9999-12-31T23:59:59.9999999Z","Tmax@odata.type":"Edm.DateTime","Tick":"2014-08-22T00:50:44.1234567Z","Tick@odata.type":"Edm.DateTime",' +
	'"T1":"2000-02-29T12:00:00.0000001Z","T1@odata.type":"Edm.DateTime"}',
	'{"PartitionKey":"ünïcödé ключ 😀","RowKey":"it\'s a \\"quote\\"","Имя":"значение","名前":"値","Émoji":"😀 \\u0001 tab\\t"}',
	'{"PartitionKey":"","RowKey":"","Empty":"keys"}',
];

function sign(method, path, date, contentType = '') {
	const sts = `${method}\n\n${contentType}\n${date}\n/${ACCOUNT}${path}`;
	return crypto.createHmac('sha256', KEY).update(sts, 'utf8').digest('base64');
}

async function request(url, method, resource, { query = '', body, accept = 'application/json;odata=nometadata', contentType = '' } = {}) {
	const base = new URL(url);
	const path = base.pathname.replace(/\/$/, '') + resource;
	const date = new Date().toUTCString();
	const headers = {
		'x-ms-date': date, 'x-ms-version': '2019-02-02', Accept: accept, DataServiceVersion: '3.0',
		Authorization: `SharedKey ${ACCOUNT}:${sign(method, path, date, contentType)}`,
	};
	if (contentType) headers['Content-Type'] = contentType;
	const res = await fetch(`${base.origin}${path}${query ? '?' + query : ''}`, { method, headers, body });
	return { status: res.status, headers: res.headers, text: await res.text() };
}

// JSON with each number's source text kept (Node 22: JSON.parse's reviver context)
function parseKeepingNumbers(text) {
	return JSON.parse(text, (k, v, ctx) => (typeof v === 'number' ? { num: ctx.source } : v));
}

function canonicalDouble(src) {
	if (src === 'NaN' || src === 'Infinity' || src === '-Infinity') return src;
	const d = Number(src);
	if (Number.isNaN(d)) return 'bad:' + src;
	return Object.is(d, -0) ? '-0' : String(d);
}

function canonicalDateTime(s) {
	const m = /^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)(?:\.(\d{1,7}))?Z?$/.exec(s);
	return m ? `${m[1]}.${(m[2] || '').padEnd(7, '0')}Z` : 'bad:' + s;
}

// one entity object -> "pk \t rk \t name:type:value \x1f ..." (properties sorted by name, Timestamp
// and odata.* left out: they are the store's, not the entity's)
export function normalise(obj) {
	const props = [];
	for (const [name, v] of Object.entries(obj)) {
		if (name === 'PartitionKey' || name === 'RowKey' || name === 'Timestamp' || name.startsWith('odata.') || name.includes('@')) continue;
		if (v === null) continue;
		let type = obj[name + '@odata.type'];
		let value;
		if (type === undefined) {
			if (typeof v === 'string') type = 'Edm.String';
			else if (typeof v === 'boolean') type = 'Edm.Boolean';
			else if (v && v.num !== undefined) type = /^-?\d+$/.test(v.num) && Math.abs(Number(v.num)) <= 2147483648 ? 'Edm.Int32' : 'Edm.Double';
		}
		const raw = v && v.num !== undefined ? v.num : v;
		switch (type) {
			case 'Edm.Double': value = canonicalDouble(String(raw)); break;
			case 'Edm.Int32': value = String(Number(raw)); break;
			case 'Edm.Int64': value = BigInt(raw).toString(); break;
			case 'Edm.DateTime': value = canonicalDateTime(raw); break;
			case 'Edm.Binary': value = Buffer.from(raw, 'base64').toString('hex'); break;
			case 'Edm.Guid': value = String(raw).toLowerCase(); break;
			case 'Edm.Boolean': value = String(raw === true || raw === 'true'); break;
			default: value = JSON.stringify(raw);
		}
		props.push(`${name}:${type}:${value}`);
	}
	props.sort((a, b) => (a.split(':')[0] < b.split(':')[0] ? -1 : 1));
	return `${JSON.stringify(obj.PartitionKey)}\t${JSON.stringify(obj.RowKey)}\t${props.join('\x1f')}`;
}

async function* entities(url, table, accept = 'application/json;odata=fullmetadata') {
	let next = '';
	for (;;) {
		const r = await request(url, 'GET', `/${table}()`, { query: next, accept });
		if (r.status !== 200) throw new Error(`GET ${table}: ${r.status} ${r.text.slice(0, 300)}`);
		for (const e of parseKeepingNumbers(r.text).value) yield e;
		const pk = r.headers.get('x-ms-continuation-NextPartitionKey');
		if (!pk) return;
		const rk = r.headers.get('x-ms-continuation-NextRowKey');
		next = `NextPartitionKey=${encodeURIComponent(pk)}` + (rk ? `&NextRowKey=${encodeURIComponent(rk)}` : '');
	}
}

function sasToken(url, kind, perms, table) {
	const se = new Date(Date.now() + 3600e3).toISOString().replace(/\.\d+Z$/, 'Z');
	const sv = '2019-02-02';
	let sts, params;
	if (kind === 'table') {
		sts = [perms, '', se, `/table/${ACCOUNT}/${table.toLowerCase()}`, '', '', '', sv, '', '', '', ''].join('\n');
		params = { sv, tn: table, sp: perms, se };
	} else {
		sts = [ACCOUNT, perms, 't', 'sco', '', se, '', '', sv, ''].join('\n');
		params = { sv, ss: 't', srt: 'sco', sp: perms, se };
	}
	params.sig = crypto.createHmac('sha256', KEY).update(sts, 'utf8').digest('base64');
	return Object.entries(params).map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&');
}

const [cmd, url, a, b, c] = process.argv.slice(2);
if (cmd === 'seed' || cmd === 'create') {
	const r = await request(url, 'POST', '/Tables', { body: JSON.stringify({ TableName: a }), contentType: 'application/json' });
	if (r.status !== 201 && r.status !== 204 && r.status !== 409) throw new Error(`create ${a}: ${r.status} ${r.text}`);
	if (cmd === 'seed')
		for (const e of EDGE) {
			const w = await request(url, 'POST', `/${a}`, { body: e, contentType: 'application/json' });
			if (w.status !== 201 && w.status !== 204) throw new Error(`insert: ${w.status} ${w.text}`);
		}
} else if (cmd === 'dump') {
	const lines = [];
	for await (const e of entities(url, a)) lines.push(normalise(e));
	console.log(lines.sort().join('\n'));
} else if (cmd === 'etags') {
	const lines = [];
	for await (const e of entities(url, a, 'application/json;odata=minimalmetadata'))
		lines.push(`${JSON.stringify(e.PartitionKey)}\t${JSON.stringify(e.RowKey)}\t${e['odata.etag']}`);
	console.log(lines.sort().join('\n'));
} else if (cmd === 'etags-raw') {
	for await (const e of entities(url, a, 'application/json;odata=minimalmetadata'))
		console.log(`${e.PartitionKey}\t${e.RowKey}\t${e['odata.etag']}`);
} else if (cmd === 'count') {
	let n = 0;
	const keys = new Set();
	for await (const e of entities(url, a, 'application/json;odata=nometadata')) {
		n++;
		keys.add(JSON.stringify([e.PartitionKey, e.RowKey]));
	}
	console.log(`${n} ${keys.size}`);
} else if (cmd === 'normalise') {
	const lines = [];
	for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
		if (!line) continue;
		if (line.startsWith('{')) lines.push(normalise(parseKeepingNumbers(line)));
		else {
			const [pk, rk, json] = line.split('\t');
			lines.push(normalise({ ...parseKeepingNumbers(json), PartitionKey: pk, RowKey: rk }));
		}
	}
	console.log(lines.sort().join('\n'));
} else if (cmd === 'keys-json') {
	// stdin "pk<TAB>rk<TAB>rest" (psql) -> the keys as JSON strings, as dump and etags print them
	const lines = [];
	for (const line of fs.readFileSync(0, 'utf8').split('\n')) {
		if (!line) continue;
		const [pk, rk, ...rest] = line.split('\t');
		lines.push(`${JSON.stringify(pk)}\t${JSON.stringify(rk)}\t${rest.join('\t')}`);
	}
	console.log(lines.sort().join('\n'));
} else if (cmd === 'sas') {
	console.log(sasToken(url, a, b, c));
} else {
	console.error('usage: see the header of test/copy/peers.mjs');
	process.exit(2);
}
