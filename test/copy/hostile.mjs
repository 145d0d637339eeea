// test/copy/hostile.mjs - a Table endpoint that misbehaves, for test/copy/run.sh: each account
// (the first segment of the path, http://127.0.0.1:PORT/<mode>) is one way of misbehaving. It
// answers every request without checking its signature, on 127.0.0.1 only, and appends each
// request line to LOG ("<mode> <method> <url>").
//
//   node hostile.mjs PORT LOG
//
// Modes (the table each lists is "Data" unless said):
//   huge         every page is 40 MiB, whatever $top asks
//   bigpage      a page is 40 MiB while $top is over 10, else one entity: the reader asks for less
//   loop         a page with one entity, and the continuation it was given back (the first: "A")
//   replay       the same entity on every page, a new continuation each time
//   badjson      a page that is not JSON
//   overlimit    three entities, the middle one over the limits (a String of 70 000 characters)
//   names        the tables "../x" and "Good"
//   tablesloop   the table list's continuation given back for ever
//   hang         lists the table, then never answers a page
//   echo         answers every write with 400 and an error message holding the request's URL
import http from 'node:http';
import fs from 'node:fs';

const [port, log] = process.argv.slice(2);

function json(res, status, obj, headers = {}) {
	const body = typeof obj === 'string' ? obj : JSON.stringify(obj);
	res.writeHead(status, { 'Content-Type': 'application/json;odata=fullmetadata', ...headers });
	res.end(body);
}

function entity(pk, rk, extra = {}) {
	return { PartitionKey: pk, RowKey: rk, Timestamp: '2024-05-06T07:08:09.1234567Z', 'Timestamp@odata.type': 'Edm.DateTime', n: 1, ...extra };
}

const server = http.createServer((req, res) => {
	const url = new URL(req.url, 'http://h');
	const [, mode, resource = ''] = url.pathname.split('/');
	fs.appendFileSync(log, `${mode} ${req.method} ${req.url}\n`);
	let body = '';
	req.on('data', (c) => { if (body.length < 1 << 20) body += c; });
	req.on('end', () => {
		const top = Number(url.searchParams.get('$top') || 1000);
		const next = url.searchParams.get('NextPartitionKey');
		if (resource === 'Tables' || resource.startsWith('Tables(')) {
			if (resource.startsWith('Tables(')) return json(res, 200, { TableName: 'Data' });
			if (req.method === 'POST') return json(res, 201, { TableName: 'Data' });
			if (mode === 'names') return json(res, 200, { value: [{ TableName: '../x' }, { TableName: 'Good' }] });
			if (mode === 'tablesloop')
				return json(res, 200, { value: [{ TableName: 'Data' }] }, { 'x-ms-continuation-NextTableName': 'T1' });
			return json(res, 200, { value: [{ TableName: 'Data' }] });
		}
		if (req.method !== 'GET') {
			if (mode === 'echo')
				return json(res, 400, { 'odata.error': { code: 'InvalidInput', message: { lang: 'en-US', value: `cannot take ${req.method} ${req.url}` } } });
			return json(res, 204, '');
		}
		switch (mode) {
			case 'huge':
			case 'bigpage': {
				if (mode === 'bigpage' && top <= 10) return json(res, 200, { value: [entity('p', 'r1')] });
				res.writeHead(200, { 'Content-Type': 'application/json' });
				res.write('{"value":[');
				const chunk = JSON.stringify(entity('p', 'r', { pad: 'x'.repeat(60000) })) + ',';
				let sent = 0;
				const more = () => {
					while (sent < 40 * 1024 * 1024) {
						sent += chunk.length;
						if (!res.write(chunk)) return res.once('drain', more);
					}
					res.end(JSON.stringify(entity('p', 'z')) + ']}');
				};
				res.on('error', () => {});
				return more();
			}
			case 'loop':
				return json(res, 200, { value: next ? [] : [entity('p', 'r1')] }, { 'x-ms-continuation-NextPartitionKey': next || 'A' });
			case 'replay':
				return json(res, 200, { value: [entity('p', 'r1')] }, { 'x-ms-continuation-NextPartitionKey': 'N' + Math.random() });
			case 'badjson':
				return json(res, 200, '{"value":[{"PartitionKey":"p","RowKey":"r1",');
			case 'overlimit':
				return json(res, 200, { value: [entity('p', 'a'), entity('p', 'b', { big: 'y'.repeat(70000) }), entity('p', 'c')] });
			case 'hang':
				return;			// never answers
			default:
				return json(res, 200, { value: [entity('p', 'r1'), entity('p', 'r2')] });
		}
	});
});
server.keepAliveTimeout = 60000;
server.listen(Number(port), '127.0.0.1');
